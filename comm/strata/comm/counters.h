// Bytes sent and time spent waiting, per communication category, for one rank.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace strata {

enum class CommCategory {
  kHaloForward,
  kHaloBackward,
  kAllReduce,
  kStageForward,
  kStageBackward,
  kEval,
  kControl
};

inline constexpr int kCommCategoryCount = 7;
inline constexpr std::array<CommCategory, kCommCategoryCount> kCommCategories{
    CommCategory::kHaloForward,  CommCategory::kHaloBackward,  CommCategory::kAllReduce,
    CommCategory::kStageForward, CommCategory::kStageBackward, CommCategory::kEval,
    CommCategory::kControl};

// "halo_fwd", "halo_bwd", "allreduce", "stage_fwd", "stage_bwd", "eval", "control".
std::string_view comm_category_name(CommCategory category);

struct CategoryCounts {
  std::int64_t bytes_sent = 0;  // bytes this rank sent to other ranks (never to itself)
  double wait_seconds = 0.0;    // wall time spent inside the communicator
  // Wall time transfers posted without waiting were in flight while the rank computed
  // (posting to the wait; an upper bound where the wait found them done). Only what
  // overlaps computation on purpose records it (the halo exchange).
  double overlap_seconds = 0.0;
};

// Counting rules (exact integers: the analytic volume model is checked against them):
// point-to-point and all_to_all_v count bytes sent to other ranks; broadcast counts
// size * (P - 1) on the root; all_gather counts mine.size() * (P - 1); all_reduce counts
// what a ring all-reduce sends (ring_all_reduce_bytes). P = 1 counts 0 everywhere.
class ByteCounters {
 public:
  void add(CommCategory category, std::int64_t bytes_sent, double wait_seconds = 0.0);
  void add_overlap(CommCategory category, double seconds);
  void reset() { counts_ = {}; }
  ByteCounters& operator+=(const ByteCounters& other);

  const CategoryCounts& operator[](CommCategory category) const {
    return counts_[static_cast<std::size_t>(category)];
  }
  std::int64_t bytes_sent(CommCategory category) const { return (*this)[category].bytes_sent; }
  double wait_seconds(CommCategory category) const { return (*this)[category].wait_seconds; }
  std::int64_t total_bytes_sent() const;
  double total_wait_seconds() const;
  double total_overlap_seconds() const;

 private:
  std::array<CategoryCounts, kCommCategoryCount> counts_{};
};

// Bytes rank `rank` of `ranks` sends in a ring all-reduce of `elements` elements.
// The elements are split into P chunks, chunk i holding n/P + (i < n%P) elements. In the
// reduce-scatter phase rank r sends every chunk but (r+1)%P, in the all-gather phase every
// chunk but (r+2)%P. Summed over ranks this is exactly 2 * (P-1) * n * element_size.
std::int64_t ring_all_reduce_bytes(std::int64_t elements, int ranks, int rank,
                                   std::size_t element_size);

}  // namespace strata
