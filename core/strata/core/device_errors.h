// What a failing cudaGetDeviceCount means: no GPU here (the GPU tests skip), or a GPU
// that CUDA cannot use (an error that says why). Plain C++: tested in every build.
#pragma once
#include <string>

namespace strata::gpu {

// cudaError_t values (core/cuda/device.cpp checks them against the runtime's).
inline constexpr int kCudaErrorStubLibrary = 34;
inline constexpr int kCudaErrorInsufficientDriver = 35;
inline constexpr int kCudaErrorNoDevice = 100;
inline constexpr int kCudaErrorSystemDriverMismatch = 803;
inline constexpr int kCudaErrorCompatNotSupportedOnDevice = 804;

// code: cudaGetDeviceCount's cudaError_t; driver_version: cudaDriverGetVersion's, 0 when
// no driver is installed. kNoDevice: cudaErrorNoDevice, or cudaErrorInsufficientDriver
// with no driver at all (what a machine without a GPU reports). kBroken: anything else,
// such as a driver too old for this runtime, a driver library that does not match its
// kernel module, or the toolkit's stub libcuda loaded.
enum class DeviceCountError { kNoDevice, kBroken };
DeviceCountError classify_device_count_error(int code, int driver_version);

// The message of a kBroken error: the CUDA error, both CUDA versions (12040 is 12.4) and
// what to do.
std::string device_count_error_message(int code, const std::string& error_name, int driver_version,
                                       int runtime_version);

}  // namespace strata::gpu
