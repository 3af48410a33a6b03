// core/strata/core/device.h in a build without CUDA: no device ever answers, and anything
// that would need one throws "built without CUDA".
#include "strata/core/block_pool.h"
#include "strata/core/cuda_check.h"
#include "strata/core/device.h"
#include "strata/core/error.h"

namespace strata {

void cuda_check(int code, const char* operation, const char*, int) {
  if (code != 0) throw_input_error(operation, ": built without CUDA");
}

}  // namespace strata

namespace strata::gpu {
namespace {

[[noreturn]] void no_cuda(const char* what) {
  throw_input_error(what, ": built without CUDA (configure with nvcc on the PATH and ",
                    "-DSTRATA_WITH_CUDA=ON)");
}

}  // namespace

bool built_with_cuda() {
  return false;
}
bool available() {
  return false;
}
int device_count() {
  return 0;
}
std::string describe(int) {
  no_cuda("gpu::describe");
}
std::int64_t bytes_in_use(int) {
  no_cuda("gpu::bytes_in_use");
}
std::int64_t device_allocations() {
  return 0;
}

Context::Context(int device) : device_(device) {
  no_cuda("gpu::Context");
}
Context::~Context() = default;
void Context::synchronize() const {}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) no_cuda("gpu::DeviceBuffer");
}
DeviceBuffer::DeviceBuffer(std::size_t bytes, const Context&) : bytes_(bytes) {
  if (bytes > 0) no_cuda("gpu::DeviceBuffer");
}
DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept = default;
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept = default;
void DeviceBuffer::upload(const void*, std::size_t, const Context&) {
  no_cuda("gpu::DeviceBuffer::upload");
}
void DeviceBuffer::download(void*, std::size_t, const Context&) const {
  no_cuda("gpu::DeviceBuffer::download");
}
void DeviceBuffer::zero(const Context&) {
  no_cuda("gpu::DeviceBuffer::zero");
}
void copy_async(void*, const void*, std::size_t, const Context&) {
  no_cuda("gpu::copy_async");
}
void copy_to_host(void*, const void*, std::size_t, const Context&) {
  no_cuda("gpu::copy_to_host");
}
void copy_to_device(void*, const void*, std::size_t, const Context&) {
  no_cuda("gpu::copy_to_device");
}

PinnedBuffer::PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) no_cuda("gpu::PinnedBuffer");
}
PinnedBuffer::~PinnedBuffer() = default;
PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept = default;
PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept = default;

}  // namespace strata::gpu
