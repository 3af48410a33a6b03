#include "strata/comm/counters.h"

#include "strata/core/error.h"

namespace strata {

std::string_view comm_category_name(CommCategory category) {
  switch (category) {
    case CommCategory::kHaloForward:
      return "halo_fwd";
    case CommCategory::kHaloBackward:
      return "halo_bwd";
    case CommCategory::kAllReduce:
      return "allreduce";
    case CommCategory::kStageForward:
      return "stage_fwd";
    case CommCategory::kStageBackward:
      return "stage_bwd";
    case CommCategory::kEval:
      return "eval";
    case CommCategory::kControl:
      return "control";
  }
  return "unknown";
}

void ByteCounters::add(CommCategory category, std::int64_t bytes_sent, double wait_seconds) {
  CategoryCounts& counts = counts_[static_cast<std::size_t>(category)];
  counts.bytes_sent += bytes_sent;
  counts.wait_seconds += wait_seconds;
}

void ByteCounters::add_overlap(CommCategory category, double seconds) {
  counts_[static_cast<std::size_t>(category)].overlap_seconds += seconds;
}

ByteCounters& ByteCounters::operator+=(const ByteCounters& other) {
  for (CommCategory c : kCommCategories) {
    add(c, other.bytes_sent(c), other.wait_seconds(c));
    add_overlap(c, other[c].overlap_seconds);
  }
  return *this;
}

std::int64_t ByteCounters::total_bytes_sent() const {
  std::int64_t total = 0;
  for (const CategoryCounts& counts : counts_) total += counts.bytes_sent;
  return total;
}

double ByteCounters::total_wait_seconds() const {
  double total = 0.0;
  for (const CategoryCounts& counts : counts_) total += counts.wait_seconds;
  return total;
}

double ByteCounters::total_overlap_seconds() const {
  double total = 0.0;
  for (const CategoryCounts& counts : counts_) total += counts.overlap_seconds;
  return total;
}

namespace {
std::int64_t ring_chunk(std::int64_t elements, int ranks, int chunk) {
  return elements / ranks + (chunk < elements % ranks ? 1 : 0);
}
}  // namespace

std::int64_t ring_all_reduce_bytes(std::int64_t elements, int ranks, int rank,
                                   std::size_t element_size) {
  STRATA_CHECK(ranks >= 1 && rank >= 0 && rank < ranks && elements >= 0, "rank ", rank, " of ",
               ranks, ", ", elements, " elements");
  const std::int64_t reduce_scatter = elements - ring_chunk(elements, ranks, (rank + 1) % ranks);
  const std::int64_t all_gather = elements - ring_chunk(elements, ranks, (rank + 2) % ranks);
  return (reduce_scatter + all_gather) * static_cast<std::int64_t>(element_size);
}

}  // namespace strata
