// A CSR from entries enumerated twice, once to count each row's and once to place them, so
// that no list of the entries is held beside it: build_csr from an edge list, and the
// synthetic generators, which draw their edges again instead of keeping them.
#pragma once
#include <atomic>
#include <utility>
#include <vector>

#include "strata/core/error.h"
#include "strata/graph/csr.h"

namespace strata {

// Edges a parse gives one at a time, passed on to csr_from_entries' visit a batch at a time:
// visited between parses, the rows' scattered counters miss the cache one after another
// (loading was 3x slower); in a tight loop the misses overlap. Each edge is visited once,
// or also reversed; flush() after the last.
template <typename Visit>
class EdgeBatch {
 public:
  EdgeBatch(Visit& visit, bool symmetrize) : visit_(visit), symmetrize_(symmetrize) {
    edges_.reserve(kSize);
  }
  void add(LocalId src, LocalId dst) {
    edges_.emplace_back(src, dst);
    if (edges_.size() == kSize) flush();
  }
  void flush() {
    for (const auto& [src, dst] : edges_) {
      visit_(src, dst);
      if (symmetrize_) visit_(dst, src);
    }
    edges_.clear();
  }

 private:
  static constexpr std::size_t kSize = std::size_t{1} << 16;
  Visit& visit_;
  bool symmetrize_;
  std::vector<std::pair<LocalId, LocalId>> edges_;
};

// Each row's entries (in any order on entry) sorted by column, duplicates dropped if asked,
// the rows moved together.
void sort_rows(Csr& csr, bool drop_duplicates);

// for_each(visit) calls visit(row, column) for every entry, rows and columns in [0, n),
// from any number of threads, the same entries on every call.
template <typename ForEach>
Csr csr_from_entries(LocalId n, ForEach&& for_each, bool drop_duplicates) {
  Csr csr;
  csr.rows = csr.cols = n;
  csr.offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  for_each([&](LocalId r, LocalId) {
    std::atomic_ref(csr.offsets[static_cast<std::size_t>(r) + 1])
        .fetch_add(1, std::memory_order_relaxed);
  });
  for (std::size_t r = 0; r < static_cast<std::size_t>(n); ++r)
    csr.offsets[r + 1] += csr.offsets[r];
  csr.indices.resize(static_cast<std::size_t>(csr.offsets.back()));
  std::vector<EdgeOffset> cursor(csr.offsets.begin(), csr.offsets.end() - 1);
  std::atomic<bool> overflow = false;  // a second enumeration with more entries than the first
  for_each([&](LocalId r, LocalId c) {
    const auto row = static_cast<std::size_t>(r);
    const EdgeOffset at = std::atomic_ref(cursor[row]).fetch_add(1, std::memory_order_relaxed);
    if (at < csr.offsets[row + 1])
      csr.indices[static_cast<std::size_t>(at)] = c;
    else
      overflow.store(true, std::memory_order_relaxed);
  });
  for (std::size_t r = 0; r < cursor.size() && !overflow; ++r)
    overflow = cursor[r] != csr.offsets[r + 1];
  STRATA_CHECK(!overflow, "csr_from_entries: the entries differ between enumerations");
  cursor = std::vector<EdgeOffset>();  // freed ({} would keep the capacity)
  sort_rows(csr, drop_duplicates);
  return csr;
}

}  // namespace strata
