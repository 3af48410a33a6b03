// The device layer: a build without CUDA, or a machine without a GPU, says so clearly;
// with a GPU, buffers round-trip and a missing device is an input error.
#include <catch2/catch.hpp>
#include <vector>

#include "strata/core/device.h"
#include "strata/core/error.h"

namespace strata {
namespace {

TEST_CASE("without a device the GPU entry points fail with a clear message", "[gpu]") {
  if (gpu::available()) {
    WARN("a CUDA device answers: the no-device case is not exercised here");
    return;
  }
  CHECK(gpu::device_count() == 0);
  const std::string expected = gpu::built_with_cuda() ? "does not exist" : "built without CUDA";
  REQUIRE_THROWS_WITH(gpu::Context(0), Catch::Contains(expected));
}

TEST_CASE("device buffers round-trip and a device that is not there is refused", "[gpu]") {
  if (!gpu::available()) {
    WARN("no CUDA device answers: skipped");
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
