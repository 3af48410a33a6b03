// core/strata/core/device.h over the CUDA runtime API (host code: g++ compiles it).
#include "strata/core/device.h"

#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <utility>

#include "strata/core/block_pool.h"
#include "strata/core/cuda_check.h"
#include "strata/core/device_errors.h"
#include "strata/core/error.h"

namespace strata {

void cuda_check(int code, const char* operation, const char* file, int line) {
  if (code == cudaSuccess) return;
  const auto error = static_cast<cudaError_t>(code);
  const char* what = error == cudaErrorMemoryAllocation ? "out of GPU memory: " : "CUDA error: ";
  throw_internal_error(file, line, what, operation, ": ", cudaGetErrorName(error), " (",
                       cudaGetErrorString(error), ")");
}

}  // namespace strata

namespace strata::gpu {

static_assert(kCudaErrorStubLibrary == cudaErrorStubLibrary);
static_assert(kCudaErrorInsufficientDriver == cudaErrorInsufficientDriver);
static_assert(kCudaErrorNoDevice == cudaErrorNoDevice);
static_assert(kCudaErrorSystemDriverMismatch == cudaErrorSystemDriverMismatch);
static_assert(kCudaErrorCompatNotSupportedOnDevice == cudaErrorCompatNotSupportedOnDevice);

namespace {

std::atomic<std::int64_t> allocations{0};

void* device_malloc(std::size_t bytes) {
  void* data = nullptr;
  STRATA_CUDA_CHECK(cudaMalloc(&data, bytes));
  ++allocations;
  return data;
}

// cudaMalloc and cudaFree under a context's pool. cudaFree waits for the whole device,
// so a freed block's last kernels are done.
class CudaUpstream : public BlockPool::Upstream {
 public:
  void* allocate(std::size_t bytes) override {
    void* data = nullptr;
    const cudaError_t status = cudaMalloc(&data, bytes);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky, but cleared for the retry
      return nullptr;
    }
    STRATA_CUDA_CHECK(status);
    ++allocations;
    return data;
  }
  void free(void* block) noexcept override { cudaFree(block); }
};

}  // namespace

bool built_with_cuda() {
  return true;
}

bool available() {
  return device_count() > 0;
}

int device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess) return count;
  cudaGetLastError();  // clear the error so later calls start clean
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);  // 0 when no driver is installed
  cudaRuntimeGetVersion(&runtime);
  if (classify_device_count_error(status, driver) == DeviceCountError::kNoDevice) return 0;
  throw Error(ErrorKind::kInternal,
              device_count_error_message(status, cudaGetErrorName(status), driver, runtime));
}

std::int64_t bytes_in_use(int device) {
  int previous = 0;
  STRATA_CUDA_CHECK(cudaGetDevice(&previous));
  STRATA_CUDA_CHECK(cudaSetDevice(device));
  std::size_t free = 0, total = 0;
  const cudaError_t status = cudaMemGetInfo(&free, &total);
  STRATA_CUDA_CHECK(cudaSetDevice(previous));
  STRATA_CUDA_CHECK(status);
  return static_cast<std::int64_t>(total - free);
}

std::int64_t device_allocations() {
  return allocations.load();
}

std::string describe(int device) {
  cudaDeviceProp p{};
  STRATA_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  char line[320];
  std::snprintf(line, sizeof line, "%s, %.1f GiB, compute %d.%d", p.name,
                static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), p.major,
                p.minor);
  return line;
}

Context::Context(int device) : device_(device) {
  STRATA_REQUIRE(device >= 0 && device < device_count(), "GPU ", device, " does not exist (",
                 device_count(), " CUDA devices answer)");
  STRATA_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t stream = nullptr;
  STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  stream_ = stream;
  pool_ = std::make_unique<BlockPool>(std::make_unique<CudaUpstream>());
}

Context::~Context() {
  pool_.reset();
  cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void Context::synchronize() const {
  STRATA_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)));
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) data_ = device_malloc(bytes);
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, const Context& pooled_by)
    : bytes_(bytes), pool_(&pooled_by.pool()) {
  if (bytes > 0) data_ = pool_->allocate(bytes);
}

DeviceBuffer::~DeviceBuffer() {
  free();
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      pool_(other.pool_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    free();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    pool_ = other.pool_;
  }
  return *this;
}

void DeviceBuffer::free() noexcept {
  if (data_ == nullptr) return;
  if (pool_)
    pool_->release(data_);
  else
    cudaFree(data_);
}

void DeviceBuffer::upload(const void* host, std::size_t bytes, const Context& context) {
  STRATA_CHECK(bytes <= bytes_, "upload of ", bytes, " bytes into a buffer of ", bytes_);
  copy_to_device(data_, host, bytes, context);
}

void DeviceBuffer::download(void* host, std::size_t bytes, const Context& context) const {
  STRATA_CHECK(bytes <= bytes_, "download of ", bytes, " bytes from a buffer of ", bytes_);
  copy_to_host(host, data_, bytes, context);
}

void DeviceBuffer::zero(const Context& context) {
  const auto stream = static_cast<cudaStream_t>(context.stream());
  STRATA_CUDA_CHECK(cudaMemsetAsync(data_, 0, bytes_, stream));
}

void copy_async(void* dst, const void* src, std::size_t bytes, const Context& context) {
  const auto stream = static_cast<cudaStream_t>(context.stream());
  STRATA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
}

void copy_to_host(void* host, const void* device, std::size_t bytes, const Context& context) {
  if (bytes == 0) return;
  const auto stream = static_cast<cudaStream_t>(context.stream());
  STRATA_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream));
  context.synchronize();
}

void copy_to_device(void* device, const void* host, std::size_t bytes, const Context& context) {
  if (bytes == 0) return;
  const auto stream = static_cast<cudaStream_t>(context.stream());
  STRATA_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
  context.synchronize();
}

PinnedBuffer::PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
  void* data = nullptr;
  if (bytes > 0) STRATA_CUDA_CHECK(cudaMallocHost(&data, bytes));
  data_ = static_cast<std::byte*>(data);
}

PinnedBuffer::~PinnedBuffer() {
  if (data_) cudaFreeHost(data_);
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept {
  if (this != &other) {
    if (data_) cudaFreeHost(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

}  // namespace strata::gpu
