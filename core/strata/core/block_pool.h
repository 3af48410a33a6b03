// A caching allocator over an upstream one (cudaMalloc for a gpu::Context's device
// memory). A released block is kept, by size class, and handed out again: a loop that
// allocates the same sizes every iteration (an epoch's loss and accuracy temporaries,
// activations reshaped chunk by chunk) reaches the upstream only in its first iteration.
// cudaMalloc and cudaFree are slow and cudaFree synchronizes the whole device, so that
// ranks sharing a GPU would otherwise serialize on every free.
//
// Reuse is safe without waiting when every user of a block runs on one stream (a
// Context's): work queued after the block is handed out again runs after the work
// queued before it was released. Work on other streams must be waited for before its
// buffers are released (Communicator::wait does).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace strata {

class BlockPool {
 public:
  class Upstream {
   public:
    virtual ~Upstream() = default;
    // A block of `bytes`, or null when the memory is exhausted; throws on other errors.
    virtual void* allocate(std::size_t bytes) = 0;
    virtual void free(void* block) noexcept = 0;
  };
  struct Stats {
    std::int64_t upstream_allocations = 0;  // blocks the upstream gave
    std::int64_t upstream_frees = 0;
    std::int64_t reuses = 0;  // allocations served from the cache
    std::size_t bytes_in_use = 0;
    std::size_t bytes_cached = 0;
  };

  explicit BlockPool(std::unique_ptr<Upstream> upstream);
  // Frees the cached blocks; every block must have been released.
  ~BlockPool();
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  // At least `bytes` (> 0). When the upstream is exhausted, the cache is freed and the
  // allocation tried once more; then it throws "out of GPU memory".
  void* allocate(std::size_t bytes);
  // A block from allocate(), now free for reuse.
  void release(void* block);
  // Frees every cached block to the upstream.
  void trim();
  Stats stats() const;

  // The size a request of `bytes` is served with: 512 bytes at least, else rounded up to
  // 1, 1.25, 1.5 or 1.75 times a power of two (at most a quarter more).
  static std::size_t size_class(std::size_t bytes);

 private:
  void* take_cached(std::size_t size);
  void trim_locked();

  mutable std::mutex mutex_;
  std::unique_ptr<Upstream> upstream_;
  std::unordered_map<void*, std::size_t> in_use_;     // block -> its size class
  std::map<std::size_t, std::vector<void*>> cached_;  // size class -> free blocks
  Stats stats_;
};

}  // namespace strata
