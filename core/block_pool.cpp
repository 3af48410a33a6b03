#include "strata/core/block_pool.h"

#include <bit>

#include "strata/core/error.h"

namespace strata {

BlockPool::BlockPool(std::unique_ptr<Upstream> upstream) : upstream_(std::move(upstream)) {}

BlockPool::~BlockPool() {
  trim_locked();
}

std::size_t BlockPool::size_class(std::size_t bytes) {
  constexpr std::size_t kSmallest = 512;
  if (bytes <= kSmallest) return kSmallest;
  const std::size_t step = std::bit_floor(bytes) / 4;
  return (bytes + step - 1) / step * step;
}

void* BlockPool::allocate(std::size_t bytes) {
  STRATA_CHECK(bytes > 0, "BlockPool::allocate of 0 bytes");
  const std::size_t size = size_class(bytes);
  const std::lock_guard lock(mutex_);
  void* block = take_cached(size);
  if (block == nullptr) {
    block = upstream_->allocate(size);
    if (block == nullptr) {  // the cache may hold enough, in blocks of other sizes
      trim_locked();
      block = upstream_->allocate(size);
    }
    if (block == nullptr)
      throw Error(ErrorKind::kInternal, cat("out of GPU memory: ", bytes, " bytes wanted, ",
                                            stats_.bytes_in_use, " in use by this worker"));
    ++stats_.upstream_allocations;
  }
  in_use_.emplace(block, size);
  stats_.bytes_in_use += size;
  return block;
}

void* BlockPool::take_cached(std::size_t size) {
  const auto it = cached_.find(size);
  if (it == cached_.end() || it->second.empty()) return nullptr;
  void* block = it->second.back();
  it->second.pop_back();
  stats_.bytes_cached -= size;
  ++stats_.reuses;
  return block;
}

void BlockPool::release(void* block) {
  const std::lock_guard lock(mutex_);
  const auto it = in_use_.find(block);
  STRATA_CHECK(it != in_use_.end(), "BlockPool::release of a block it did not give");
  const std::size_t size = it->second;
  in_use_.erase(it);
  stats_.bytes_in_use -= size;
  cached_[size].push_back(block);
  stats_.bytes_cached += size;
}

void BlockPool::trim() {
  const std::lock_guard lock(mutex_);
  trim_locked();
}

void BlockPool::trim_locked() {
  for (auto& [size, blocks] : cached_) {
    for (void* block : blocks) upstream_->free(block);
    stats_.upstream_frees += static_cast<std::int64_t>(blocks.size());
  }
  cached_.clear();
  stats_.bytes_cached = 0;
}

BlockPool::Stats BlockPool::stats() const {
  const std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace strata
