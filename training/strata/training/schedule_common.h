// What a rank's trainer needs besides its stage and passes: the labels of its rows, the
// chunk order of an epoch, the per-stage times of the metrics, and the gather of the whole
// model's weights from every stage.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/datasets/dataset.h"
#include "strata/training/rank_state.h"
#include "strata/training/row_layout.h"
#include "strata/training/train_config.h"

namespace strata {

// Labels and masks given per owned row already.
StageLabels stage_labels(std::vector<std::int32_t> labels,
                         std::array<std::vector<std::uint8_t>, 3> masks);
// The labels and masks of `rows` of `from`: a Dataset (rows: global ids) or a graph-mode
// Shard (rows: its local ids).
template <typename Labelled>
StageLabels stage_labels(const Labelled& from, std::span<const GlobalId> rows) {
  return stage_labels(select_values(from.labels, rows),
                      {select_values(from.train_mask, rows), select_values(from.val_mask, rows),
                       select_values(from.test_mask, rows)});
}
// The labelled rows a stage reports: only the last stage holds logits and counts them.
inline std::array<double, 3> label_counts(bool last_stage, const StageLabels& labels) {
  return last_stage ? labels.counts : std::array<double, 3>{0, 0, 0};
}

// 0, 1, ..., count - 1, reversed on odd epochs when the order alternates.
std::vector<int> chunk_order(const PipelineOptions& options, std::int64_t epoch, int count);

// The fraction of Â's entries that read history in an epoch run in `order` over `layout`
// (zero for an exact epoch).
double history_fraction(const RowLayout& layout, bool exact, const std::vector<int>& order);

// Collective over comm (the whole job, where job rank r is stage r / (size / stages)):
// every stage's compute and idle seconds, the slowest part of each stage.
void add_stage_times(Communicator& comm, int stages, EpochMetrics& m, double compute_s,
                     double idle_s);

// Collective over pipe (rank = stage): every stage's tensors on every rank, stage by stage.
// stage_tensors[s]: how many tensors stage s holds; mine: this stage's.
std::vector<std::vector<float>> gather_stage_weights(Communicator& pipe,
                                                     const std::vector<std::int64_t>& stage_tensors,
                                                     const std::vector<std::vector<float>>& mine);

}  // namespace strata
