// The classification of cudaGetDeviceCount's errors (device.h), CUDA-free so that it is
// tested in every build; core/cuda/device.cpp checks the codes against cudaError_t.
#include "strata/core/device_errors.h"

#include "strata/core/error.h"

namespace strata::gpu {
namespace {

std::string cuda_version(int version) {
  if (version == 0) return "none";
  return cat(version / 1000, ".", version % 1000 / 10);
}

const char* remedy(int code, int driver_version) {
  switch (code) {
    case kCudaErrorInsufficientDriver:
      return driver_version > 0 ? "install a newer NVIDIA driver, or build with an older toolkit"
                                : "install the NVIDIA driver";
    case kCudaErrorSystemDriverMismatch:
      return "the driver library and the loaded kernel module differ: reload the nvidia "
             "module or reboot";
    case kCudaErrorCompatNotSupportedOnDevice:
      return "the CUDA forward-compatibility package does not support this GPU: use the "
             "system driver (drop cuda-compat from LD_LIBRARY_PATH)";
    case kCudaErrorStubLibrary:
      return "the toolkit's stub libcuda was loaded instead of the driver: remove the stubs "
             "folder from LD_LIBRARY_PATH";
    default:
      return "check the driver with nvidia-smi";
  }
}

}  // namespace

DeviceCountError classify_device_count_error(int code, int driver_version) {
  if (code == kCudaErrorNoDevice) return DeviceCountError::kNoDevice;
  if (code == kCudaErrorInsufficientDriver && driver_version == 0)
    return DeviceCountError::kNoDevice;
  return DeviceCountError::kBroken;
}

std::string device_count_error_message(int code, const std::string& error_name, int driver_version,
                                       int runtime_version) {
  return cat("CUDA cannot use this machine's GPUs: cudaGetDeviceCount failed with ", error_name,
             " (", code, "); the driver supports CUDA ", cuda_version(driver_version),
             ", this build's runtime is CUDA ", cuda_version(runtime_version), ": ",
             remedy(code, driver_version));
}

}  // namespace strata::gpu
