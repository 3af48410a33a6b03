#include "strata/training/schedule_common.h"

#include <algorithm>
#include <array>
#include <numeric>

#include "strata/training/training_common.h"

namespace strata {

StageLabels stage_labels(std::vector<std::int32_t> labels,
                         std::array<std::vector<std::uint8_t>, 3> masks) {
  StageLabels s{std::move(labels), std::move(masks), {}};
  for (std::size_t i = 0; i < 3; ++i) s.counts[i] = static_cast<double>(count_mask(s.masks[i]));
  return s;
}

std::vector<int> chunk_order(const PipelineOptions& options, std::int64_t epoch, int count) {
  std::vector<int> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  if (options.alternate_order && epoch % 2 == 1) std::reverse(order.begin(), order.end());
  return order;
}

double history_fraction(const RowLayout& layout, bool exact, const std::vector<int>& order) {
  if (exact) return 0.0;
  return order.front() == 0 ? layout.later_entry_fraction : layout.earlier_entry_fraction;
}

void add_stage_times(Communicator& comm, int stages, EpochMetrics& m, double compute_s,
                     double idle_s) {
  const std::array<double, 2> mine{compute_s, idle_s};
  std::vector<double> all(2 * static_cast<std::size_t>(comm.size()));
  comm.all_gather(std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)),
                  CommCategory::kControl);
  // Job rank r is stage r / G (rank_grid.h); a stage reports its slowest part.
  const int parts = comm.size() / stages;
  m.stage_compute_s.assign(static_cast<std::size_t>(stages), 0.0);
  m.stage_idle_s.assign(static_cast<std::size_t>(stages), 0.0);
  for (int r = 0; r < comm.size(); ++r) {
    const auto s = static_cast<std::size_t>(r / parts);
    m.stage_compute_s[s] = std::max(m.stage_compute_s[s], all[2 * r]);
    m.stage_idle_s[s] = std::max(m.stage_idle_s[s], all[2 * r + 1]);
  }
}

std::vector<std::vector<float>> gather_stage_weights(Communicator& pipe,
                                                     const std::vector<std::int64_t>& stage_tensors,
                                                     const std::vector<std::vector<float>>& mine) {
  std::vector<std::vector<float>> all;
  for (int s = 0; s < pipe.size(); ++s) {
    for (std::int64_t t = 0; t < stage_tensors[s]; ++t) {
      std::int64_t size = s == pipe.rank() ? static_cast<std::int64_t>(mine[t].size()) : 0;
      pipe.broadcast(std::as_writable_bytes(std::span(&size, 1)), s, CommCategory::kControl);
      std::vector<float>& w = all.emplace_back(static_cast<std::size_t>(size));
      if (s == pipe.rank()) std::copy(mine[t].begin(), mine[t].end(), w.begin());
      pipe.broadcast(std::as_writable_bytes(std::span(w)), s, CommCategory::kControl);
    }
  }
  return all;
}

}  // namespace strata
