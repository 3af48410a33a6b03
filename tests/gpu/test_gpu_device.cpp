// The device layer: a build without CUDA, or a machine without a GPU, says so clearly;
// with a GPU, buffers round-trip and a missing device is an input error.
#include <catch2/catch.hpp>
#include <vector>

#include "skip.h"
#include "strata/core/device.h"
#include "strata/core/device_errors.h"
#include "strata/core/error.h"

namespace strata {
namespace {

TEST_CASE("without a device the GPU entry points fail with a clear message", "[gpu]") {
  if (gpu::available()) {
    test::skip("a CUDA device answers: the no-device case is not exercised here");
    return;
  }
  CHECK(gpu::device_count() == 0);
  const std::string expected = gpu::built_with_cuda() ? "does not exist" : "built without CUDA";
  REQUIRE_THROWS_WITH(gpu::Context(0), Catch::Contains(expected));
}

TEST_CASE("cudaGetDeviceCount errors: no GPU skips, a GPU CUDA cannot use is an error", "[gpu]") {
  using gpu::classify_device_count_error;
  constexpr auto kNoDevice = gpu::DeviceCountError::kNoDevice;
  constexpr auto kBroken = gpu::DeviceCountError::kBroken;
  CHECK(classify_device_count_error(gpu::kCudaErrorNoDevice, 0) == kNoDevice);
  CHECK(classify_device_count_error(gpu::kCudaErrorNoDevice, 12040) == kNoDevice);
  // No driver at all (this build machine): the runtime says "insufficient driver".
  CHECK(classify_device_count_error(gpu::kCudaErrorInsufficientDriver, 0) == kNoDevice);
  // A driver that is there but older than the runtime.
  CHECK(classify_device_count_error(gpu::kCudaErrorInsufficientDriver, 12040) == kBroken);
  CHECK(classify_device_count_error(gpu::kCudaErrorCompatNotSupportedOnDevice, 13000) == kBroken);
  CHECK(classify_device_count_error(gpu::kCudaErrorSystemDriverMismatch, 13000) == kBroken);
  CHECK(classify_device_count_error(gpu::kCudaErrorStubLibrary, 0) == kBroken);
  CHECK(classify_device_count_error(3, 13000) == kBroken);  // cudaErrorInitializationError

  const std::string too_old = gpu::device_count_error_message(
      gpu::kCudaErrorInsufficientDriver, "cudaErrorInsufficientDriver", 12040, 13000);
  CHECK_THAT(too_old, Catch::Contains("cudaErrorInsufficientDriver") &&
                          Catch::Contains("the driver supports CUDA 12.4") &&
                          Catch::Contains("runtime is CUDA 13.0") &&
                          Catch::Contains("install a newer NVIDIA driver"));
  CHECK_THAT(gpu::device_count_error_message(gpu::kCudaErrorSystemDriverMismatch,
                                             "cudaErrorSystemDriverMismatch", 13000, 13000),
             Catch::Contains("kernel module"));
}

TEST_CASE("device buffers round-trip and a device that is not there is refused", "[gpu]") {
  if (!gpu::available()) {
    test::skip("no CUDA device answers");
    return;
  }
  INFO(gpu::describe(0));
  gpu::Context context(0);
  std::vector<float> host(1000);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i) * 0.5f;
  gpu::DeviceBuffer a = gpu::to_device<float>(host, context);
  gpu::DeviceBuffer b(a.bytes());
  gpu::copy_async(b.data(), a.data(), a.bytes(), context);
  std::vector<float> back(host.size(), -1.0f);
  b.download(back.data(), b.bytes(), context);
  CHECK(back == host);
  b.zero(context);
  b.download(back.data(), b.bytes(), context);
  CHECK(back == std::vector<float>(host.size(), 0.0f));
  REQUIRE_THROWS_AS(gpu::Context(gpu::device_count()), Error);
}

}  // namespace
}  // namespace strata
