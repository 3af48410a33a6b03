#include "strata/training/rank_metrics.h"

#include <algorithm>
#include <string>
#include <vector>

namespace strata {
namespace {

template <typename Container>
std::span<std::byte> bytes_of(Container& values) {
  return std::as_writable_bytes(std::span(values.data(), values.size()));
}

std::array<std::int64_t, kCommCategoryCount> byte_growth(const ByteCounters& now,
                                                         const ByteCounters& before) {
  std::array<std::int64_t, kCommCategoryCount> growth{};
  for (int c = 0; c < kCommCategoryCount; ++c)
    growth[c] = now.bytes_sent(kCommCategories[c]) - before.bytes_sent(kCommCategories[c]);
  return growth;
}

// Max over ranks of each value, through one all-gather.
template <std::size_t N>
std::array<double, N> max_over_ranks(Communicator& comm, const std::array<double, N>& mine) {
  std::vector<double> all(N * static_cast<std::size_t>(comm.size()));
  comm.all_gather(std::as_bytes(std::span(mine)), bytes_of(all), CommCategory::kControl);
  std::array<double, N> out{};
  for (std::size_t r = 0; r < all.size(); ++r) out[r % N] = std::max(out[r % N], all[r]);
  return out;
}

double ratio(double a, double b) {
  return b > 0 ? a / b : 0.0;
}

}  // namespace

EpochMetrics reduce_epoch_metrics(Communicator& comm, std::int64_t epoch,
                                  const std::array<double, 4>& sums,
                                  const std::array<double, 3>& counts, double step_s, double wait_s,
                                  const ByteCounters& before) {
  return reduce_epoch_metrics(comm, epoch, sums, counts, step_s, wait_s, before, comm.counters());
}

EpochMetrics reduce_epoch_metrics(Communicator& comm, std::int64_t epoch,
                                  const std::array<double, 4>& sums,
                                  const std::array<double, 3>& counts, double step_s, double wait_s,
                                  const ByteCounters& before, const ByteCounters& now) {
  auto bytes = byte_growth(now, before);
  std::array<double, 7> totals{sums[0], sums[1], sums[2], sums[3], counts[0], counts[1], counts[2]};
  comm.all_reduce_sum(bytes_of(totals), DType::kFloat64, CommCategory::kControl);
  comm.all_reduce_sum(bytes_of(bytes), DType::kInt64, CommCategory::kControl);
  const double overlap_s = now.total_overlap_seconds() - before.total_overlap_seconds();
  const auto [step_max, wait_max, compute_max, overlap_max] =
      max_over_ranks<4>(comm, {step_s, wait_s, std::max(0.0, step_s - wait_s), overlap_s});
  EpochMetrics m;
  m.epoch = epoch;
  m.loss = totals[0];
  m.train_acc = ratio(totals[1], totals[4]);
  m.val_acc = ratio(totals[2], totals[5]);
  m.test_acc = ratio(totals[3], totals[6]);
  m.epoch_s = step_max;
  m.comm_s = wait_max;
  m.compute_s = compute_max;
  m.comm_overlap_s = overlap_max;
  for (int c = 0; c < kCommCategoryCount; ++c)
    if (kCommCategories[c] != CommCategory::kControl)
      m.comm_bytes[std::string(comm_category_name(kCommCategories[c]))] = bytes[c];
  return m;
}

}  // namespace strata
