#include "strata/pipeline/memory_estimate.h"

#include <algorithm>
#include <cstdio>

namespace strata {
namespace {

constexpr std::int64_t kFloat = 4, kIndex = 4, kOffset = 8;

std::int64_t csr_bytes(std::int64_t rows, std::int64_t nnz, bool values) {
  return (rows + 1) * kOffset + nnz * (kIndex + (values ? kFloat : 0));
}

std::int64_t feature_bytes(const FeatureMatrix& f) {
  if (!f.is_sparse()) return f.rows() * f.cols() * kFloat;
  return csr_bytes(f.rows(), f.nnz(), true);
}

// Chunk-order features, plus what the first layer derives from them: a dropped dense
// copy, or the sparse values and the transpose (with its source index).
std::int64_t first_stage_feature_bytes(const FeatureMatrix& f) {
  if (!f.is_sparse()) return 2 * feature_bytes(f);
  return feature_bytes(f) + f.nnz() * kFloat + csr_bytes(f.cols(), f.nnz(), true) +
         f.nnz() * kOffset;
}

// Â's `rows` rows over `cols` columns (cols = rows but for a hybrid rank's halo).
std::int64_t layout_bytes(std::int64_t rows, std::int64_t cols, std::int64_t nnz, int chunks) {
  const std::int64_t a_hat = csr_bytes(rows, nnz, true);
  // Each block's transposed rows hold its entries once; touched columns per block are at
  // most all its entries and at most all columns.
  const std::int64_t touched = std::min(static_cast<std::int64_t>(chunks) * cols, nnz);
  std::int64_t blocks = nnz * (kIndex + kFloat) + touched * (kIndex + kOffset);
  if (chunks > 1) blocks *= 2;  // the whole-graph block of the evaluation pass
  const std::int64_t order_and_labels = cols * (8 + 4 + 3);
  return a_hat + blocks + order_and_labels;
}

// Buffers sized by rows are the owned rows; those read through Â (P) or scattered into
// (G) also hold the halo: `cols` rows. Mirrors GcnStage's and GcniiStage's constructors.
std::int64_t gcn_stage_bytes(const ModelConfig& m, int first, int last, std::int64_t owned,
                             std::int64_t cols, bool halo) {
  std::int64_t floats = 0;
  auto width = [&](int l) {
    return l == 0 ? m.in_features : l == m.num_layers ? m.classes : m.hidden;
  };
  for (int l = first; l < last; ++l) {
    const std::int64_t in = width(l), out = width(l + 1);
    const bool after = (l > 0 && !halo) || in <= out;
    floats += cols * (after ? in : out) + (after || l > 0 ? owned * in : 0) + owned * out +
              ((l > 0 || !after) ? cols * (after ? in : out) : 0);
  }
  if (first > 0) floats += 2 * owned * width(first);
  floats += owned * width(last);
  return floats * kFloat;
}

std::int64_t gcnii_stage_bytes(const ModelConfig& m, int first, int last, std::int64_t owned,
                               std::int64_t cols) {
  const std::int64_t h = m.hidden;
  std::int64_t floats = (2 * cols + 2 * owned) * h * (last - first);  // P, S, Y, G per conv
  floats += owned * h;                                                // h0
  floats += first == 0 ? owned * h : 2 * owned * 2 * h;               // G0, or [h | h0] in and back
  floats += last == m.num_layers ? owned * (h + 2 * m.classes) : 2 * owned * 2 * h;
  return floats * kFloat;
}

std::int64_t parameter_count(const ModelConfig& m, int first, int last) {
  std::int64_t count = 0;
  if (m.kind == ModelKind::kGcnii) {
    const std::int64_t h = m.hidden;
    count = (last - first) * h * h;
    if (first == 0) count += m.in_features * h + h;
    if (last == m.num_layers) count += h * m.classes + m.classes;
    return count;
  }
  auto width = [&](int l) {
    return l == 0 ? m.in_features : l == m.num_layers ? m.classes : m.hidden;
  };
  for (int l = first; l < last; ++l)
    count += static_cast<std::int64_t>(width(l)) * width(l + 1) + (m.bias ? width(l + 1) : 0);
  return count;
}

std::int64_t dataset_bytes(const Dataset& data) {
  const std::int64_t n = data.adjacency.rows;
  return csr_bytes(n, data.adjacency.nnz(), !data.adjacency.values.empty()) +
         feature_bytes(data.features) + n * (4 + 3);
}

// The widest rows a stage's scratch and halo buffers hold. The features (layer 0's input)
// are never among them: they get no gradient, and layer 0 exchanges or scatters whichever
// of its input and output is narrower, at most its output.
std::int64_t stage_width(const ModelConfig& m, int first, int last) {
  if (m.kind == ModelKind::kGcnii) return m.hidden;
  std::int64_t width = 0;
  for (int l = std::max(first, 1); l <= last; ++l)
    width = std::max<std::int64_t>(width, l == 0              ? m.in_features
                                          : l == m.num_layers ? m.classes
                                                              : m.hidden);
  return width;
}

// The backward pass's per-chunk scratch (stage_buffers.h, which only grows): gradients of
// one chunk's rows (two buffers, GCNII three) and of the columns its rows touch, at most
// the chunk's entries and at most every column.
std::int64_t scratch_bytes(const ModelConfig& m, int first, int last, std::int64_t owned,
                           std::int64_t cols, std::int64_t entries, int chunks) {
  const std::int64_t block = (owned + chunks - 1) / chunks;
  const std::int64_t touched = std::min(cols, (entries + chunks - 1) / chunks);
  const int buffers = m.kind == ModelKind::kGcnii ? 3 : 2;
  return (buffers * block + touched) * stage_width(m, first, last) * kFloat;
}

// A stage's buffers over `cols` rows (owned and halo) and its parameters (float value and
// gradient, double gradient sum, two float Adam moments).
void add_stage(MemoryEstimate& e, const ModelConfig& model, const StageBounds& bounds, int stage,
               const PartSizes& part, int chunks) {
  const int first = bounds[stage], last = bounds[stage + 1];
  const std::int64_t cols = part.owned + part.halo;
  e.activations = model.kind == ModelKind::kGcnii
                      ? gcnii_stage_bytes(model, first, last, part.owned, cols)
                      : gcn_stage_bytes(model, first, last, part.owned, cols, part.halo > 0);
  e.activations += scratch_bytes(model, first, last, part.owned, cols, part.entries, chunks);
  // Halo exchange buffers, which only grow: one send and one receive buffer for the whole
  // graph (evaluation) and one each per chunk, whose rows add up to the whole's.
  e.activations += 2 * (part.sent + part.halo) * stage_width(model, first, last) * kFloat;
  e.parameters = parameter_count(model, first, last) * (4 + 4 + 8 + 8);
}

}  // namespace

PartSizes measure_part(const Csr& adjacency, std::span<const std::int32_t> part_of, int part) {
  PartSizes sizes;
  std::vector<bool> seen(static_cast<std::size_t>(adjacency.rows), false);
  std::vector<LocalId> sent_to;  // sent_to[q] == v + 1: v is already sent to part q
  for (LocalId v = 0; v < adjacency.rows; ++v) {
    if (part_of[static_cast<std::size_t>(v)] != part) continue;
    ++sizes.owned;
    sizes.entries += adjacency.offsets[v + 1] - adjacency.offsets[v] + 1;  // + self-loop
    for (EdgeOffset e = adjacency.offsets[v]; e < adjacency.offsets[v + 1]; ++e) {
      const auto u = static_cast<std::size_t>(adjacency.indices[e]);
      const auto q = static_cast<std::size_t>(part_of[u]);
      if (q == static_cast<std::size_t>(part)) continue;
      if (q >= sent_to.size()) sent_to.resize(q + 1, 0);
      if (sent_to[q] != v + 1) sent_to[q] = v + 1, ++sizes.sent;
      if (!seen[u]) seen[u] = true, ++sizes.halo;
    }
  }
  return sizes;
}

MemoryEstimate estimate_pipeline_memory(const Dataset& data, const ModelConfig& model,
                                        const StageBounds& bounds, int stage, int chunks) {
  const std::int64_t n = data.adjacency.rows, nnz = data.adjacency.nnz() + n;
  MemoryEstimate e;
  e.dataset = dataset_bytes(data);
  e.layout = layout_bytes(n, n, nnz, chunks);
  if (bounds[stage] == 0) e.features = first_stage_feature_bytes(data.features);
  add_stage(e, model, bounds, stage, {n, 0, nnz}, chunks);
  return e;
}

MemoryEstimate estimate_hybrid_memory(const Dataset& data, const ModelConfig& model,
                                      const StageBounds& bounds, int stage, int chunks,
                                      const PartSizes& part) {
  const std::int64_t n = data.adjacency.rows, rows = part.owned + part.halo;
  if (part.owned == n) return estimate_pipeline_memory(data, model, bounds, stage, chunks);
  MemoryEstimate e;
  e.dataset = dataset_bytes(data);
  e.layout = layout_bytes(part.owned, rows, part.entries, chunks);
  // The first stage's features are its rows' share of the whole (sparse: by rows too).
  if (bounds[stage] == 0 && n > 0) e.features = first_stage_feature_bytes(data.features) * rows / n;
  add_stage(e, model, bounds, stage, part, chunks);
  // Building the local rows normalizes and permutes the whole Â once, then frees both.
  e.setup = 2 * csr_bytes(n, data.adjacency.nnz() + n, true);
  return e;
}

std::string describe(const MemoryEstimate& e) {
  auto mb = [](std::int64_t b) { return static_cast<double>(b) / 1e6; };
  char setup[64] = "";
  if (e.setup > 0) std::snprintf(setup, sizeof setup, "; setup peak %.1f", mb(e.dataset + e.setup));
  char text[256];
  std::snprintf(text, sizeof text,
                "%.1f MB (dataset %.1f, layout %.1f, features %.1f, activations %.1f, "
                "parameters %.1f%s)",
                mb(e.total()), mb(e.dataset), mb(e.layout), mb(e.features), mb(e.activations),
                mb(e.parameters), setup);
  return text;
}

}  // namespace strata
