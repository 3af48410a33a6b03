// GPUs through the CUDA runtime: whether one answers, a Context (one device, one stream,
// one memory pool) and DeviceBuffer, RAII device memory from cudaMalloc (never managed
// memory), directly or through the context's pool. In a build without CUDA,
// built_with_cuda() and available() return false and everything else throws "built
// without CUDA".
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

namespace strata {
class BlockPool;
}

namespace strata::gpu {

bool built_with_cuda();
// Whether a CUDA device answers, and how many. A machine without a GPU has none; a
// cudaGetDeviceCount error that does not mean "no GPU" (device_errors.h) throws
// strata::Error saying what is wrong, so that GPU tests fail instead of skipping.
bool available();
int device_count();

// "NVIDIA H200, 139.8 GiB, compute 9.0" for one device.
std::string describe(int device);
// Bytes of the device's memory in use (total - free, cudaMemGetInfo): every context's and
// every process's on it, the CUDA runtime's own included.
std::int64_t bytes_in_use(int device);
// cudaMalloc calls Strata made so far in this process, every device and pool together.
std::int64_t device_allocations();

// One device and one stream; every GPU operation of a worker runs on its stream, in order.
// Its pool (block_pool.h) serves the worker's temporaries and tensors, which are all used
// on that stream; buffers from the pool must go before the context.
class Context {
 public:
  explicit Context(int device = 0);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int device() const { return device_; }
  void* stream() const { return stream_; }  // a cudaStream_t
  void synchronize() const;
  BlockPool& pool() const { return *pool_; }

 private:
  int device_ = 0;
  void* stream_ = nullptr;
  std::unique_ptr<BlockPool> pool_;
};

// `bytes` of device memory, freed on destruction: straight from cudaMalloc, or from a
// context's pool and back to it (for memory used only on that context's stream). Copies
// are ordered on the context's stream; the host-side calls return when the copy is done.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  DeviceBuffer(std::size_t bytes, const Context& pooled_by);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

  void upload(const void* host, std::size_t bytes, const Context& context);
  void download(void* host, std::size_t bytes, const Context& context) const;
  void zero(const Context& context);

 private:
  void free() noexcept;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  BlockPool* pool_ = nullptr;  // null: cudaMalloc's own
};

// A DeviceBuffer from context's pool holding a copy of `host`.
template <typename T>
DeviceBuffer to_device(std::span<const T> host, const Context& context) {
  static_assert(std::is_trivially_copyable_v<T>);
  DeviceBuffer buffer(host.size_bytes(), context);
  buffer.upload(host.data(), host.size_bytes(), context);
  return buffer;
}

// Device to device, on the context's stream (returns before the copy is done).
void copy_async(void* dst, const void* src, std::size_t bytes, const Context& context);
// Between host and device memory, on the context's stream; they return when it is done.
void copy_to_host(void* host, const void* device, std::size_t bytes, const Context& context);
void copy_to_device(void* device, const void* host, std::size_t bytes, const Context& context);

// `bytes` of page-locked host memory (cudaMallocHost), freed on destruction: copies from
// and to it run at full PCIe/NVLink speed and never through a bounce buffer.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes);
  ~PinnedBuffer();
  PinnedBuffer(PinnedBuffer&& other) noexcept;
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  std::byte* data() { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace strata::gpu
