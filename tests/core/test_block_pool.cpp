// The caching allocator under every gpu::Context, over a fake upstream that counts what
// it is asked for (the GPU tests count real cudaMalloc calls).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>

#include "strata/core/block_pool.h"
#include "strata/core/error.h"

namespace strata {
namespace {

struct Counts {
  std::int64_t allocations = 0, frees = 0;
  std::size_t capacity = SIZE_MAX;  // bytes the fake upstream has, in all
  std::size_t held = 0;
  std::set<void*> live;
};

class FakeUpstream : public BlockPool::Upstream {
 public:
  explicit FakeUpstream(Counts& counts) : counts_(counts) {}
  void* allocate(std::size_t bytes) override {
    if (counts_.held + bytes > counts_.capacity) return nullptr;
    void* block = std::malloc(bytes);
    counts_.held += bytes;
    ++counts_.allocations;
    counts_.live.insert(block);
    sizes_[block] = bytes;
    return block;
  }
  void free(void* block) noexcept override {
    counts_.held -= sizes_[block];
    ++counts_.frees;
    counts_.live.erase(block);
    std::free(block);
  }

 private:
  Counts& counts_;
  std::map<void*, std::size_t> sizes_;
};

// What a training epoch asks of the CUDA backend: activations reshaped for chunks of two
// sizes, the loss and accuracy temporaries, a workspace that lives across the steps.
void epoch_like(BlockPool& pool) {
  for (const std::size_t rows : {1000, 937, 1000, 937}) {
    void* activation = pool.allocate(rows * 64 * 4);
    void* gradient = pool.allocate(rows * 64 * 4);
    void* row_loss = pool.allocate(rows * 8);
    void* bad_label = pool.allocate(4);
    pool.release(row_loss);
    pool.release(bad_label);
    void* hits = pool.allocate(rows * 4);
    pool.release(hits);
    pool.release(gradient);
    pool.release(activation);
  }
}

TEST_CASE("size classes: at least 512 bytes, at most a quarter more than asked") {
  CHECK(BlockPool::size_class(1) == 512);
  CHECK(BlockPool::size_class(512) == 512);
  CHECK(BlockPool::size_class(513) == 640);
  CHECK(BlockPool::size_class(1000) == 1024);
  CHECK(BlockPool::size_class(5000) == 5120);
  CHECK(BlockPool::size_class(1 << 20) == 1 << 20);
  for (std::size_t bytes = 1; bytes < 100000; bytes += 97) {
    const std::size_t size = BlockPool::size_class(bytes);
    REQUIRE(size >= bytes);
    REQUIRE((size <= 512 || size * 4 <= bytes * 5 + 4));
  }
}

TEST_CASE("an epoch-like loop reaches the upstream in its first iteration only") {
  Counts counts;
  {
    BlockPool pool(std::make_unique<FakeUpstream>(counts));
    epoch_like(pool);
    const std::int64_t first_epoch = counts.allocations;
    CHECK(first_epoch <= 8);
    for (int epoch = 0; epoch < 5; ++epoch) epoch_like(pool);
    CHECK(counts.allocations == first_epoch);
    CHECK(counts.frees == 0);
    CHECK(pool.stats().upstream_allocations == first_epoch);
    CHECK(pool.stats().bytes_in_use == 0);
    CHECK(pool.stats().reuses > 0);
  }
  CHECK(counts.frees == counts.allocations);  // the pool's end returns every block
  CHECK(counts.live.empty());
}

TEST_CASE("a block is reused only for requests of its size class") {
  Counts counts;
  BlockPool pool(std::make_unique<FakeUpstream>(counts));
  void* a = pool.allocate(1000);
  pool.release(a);
  CHECK(pool.allocate(1001) == a);  // same class (1024)
  void* b = pool.allocate(1000);    // a is in use again: a new block
  CHECK(b != a);
  CHECK(counts.allocations == 2);
  pool.release(b);
  void* c = pool.allocate(5000);  // another class
  CHECK((c != a && c != b));
  CHECK(counts.allocations == 3);
  pool.release(a);
  pool.release(c);
  CHECK(pool.stats().bytes_cached == 1024 + 1024 + 5120);
  pool.trim();
  CHECK(counts.frees == 3);
  CHECK(pool.stats().bytes_cached == 0);
}

TEST_CASE("when the upstream is exhausted the cache is freed and the allocation retried") {
  Counts counts;
  counts.capacity = 4096;
  BlockPool pool(std::make_unique<FakeUpstream>(counts));
  void* small = pool.allocate(2048);
  pool.release(small);  // cached: the upstream now has 2048 bytes left
  void* large = pool.allocate(4000);
  CHECK(large != nullptr);
  CHECK(counts.frees == 1);
  REQUIRE_THROWS_WITH(pool.allocate(100), Catch::Contains("out of GPU memory: 100 bytes wanted"));
  pool.release(large);
}

TEST_CASE("releasing a block the pool did not give is a bug, reported") {
  Counts counts;
  BlockPool pool(std::make_unique<FakeUpstream>(counts));
  int outside = 0;
  REQUIRE_THROWS_AS(pool.release(&outside), Error);
}

}  // namespace
}  // namespace strata
