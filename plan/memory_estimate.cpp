#include "strata/plan/memory_estimate.h"

#include <algorithm>
#include <cstdio>

namespace strata {
namespace {

constexpr std::int64_t kFloat = 4, kIndex = 4, kOffset = 8;

std::int64_t csr_bytes(std::int64_t rows, std::int64_t nnz, bool values) {
  return (rows + 1) * kOffset + nnz * (kIndex + (values ? kFloat : 0));
}

// What a propagation matrix keeps beside its pattern (Csr): a value an entry (GCN's by
// default), or a scale a row and a column (GCN's with --adjacency degrees), a row's
// (GraphSAGE's mean) or none (GIN's and GAT's sum).
struct MatrixForm {
  bool values = true, row_scales = false, col_scales = false;
};

// A matrix of that form, or its transpose (whose rows carry the columns' scales).
std::int64_t propagation_bytes(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                               const MatrixForm& f, bool transposed = false) {
  const bool row = transposed ? f.col_scales : f.row_scales;
  const bool col = transposed ? f.row_scales : f.col_scales;
  return csr_bytes(rows, nnz, f.values) + ((row ? rows : 0) + (col ? cols : 0)) * kFloat;
}

std::int64_t feature_bytes(const FeatureMatrix& f) {
  if (!f.is_sparse()) return f.rows() * f.cols() * kFloat;
  return csr_bytes(f.rows(), f.nnz(), true);
}

// The first stage's features over `rows` of f's rows (first_stage_features in modes.cpp):
// dense ones read where they lie, through a list of 4 bytes a row unless the rows are f's
// own in order (own_order); plus what the first layer derives from them: a dropped dense
// copy where it multiplies them (gathered even without dropout through a list), or the
// sparse rows' copy and transpose and, with dropout, a dropout's values and the entries
// it kept (about 1 - p of them) of both, without the dropped ones.
std::int64_t first_stage_feature_bytes(const FeatureMatrix& f, const ModelConfig& model,
                                       std::int64_t rows, bool own_order) {
  const std::int64_t n = std::max<std::int64_t>(f.rows(), 1);
  if (!f.is_sparse()) {
    const bool dropped =
        model_type(model.kind).multiplies_features(model) && (model.dropout > 0 || !own_order);
    const std::int64_t copy = feature_bytes(f) * rows / n;
    return (own_order ? 0 : rows * kIndex) + (dropped ? copy : 0);
  }
  std::int64_t bytes = feature_bytes(f) + csr_bytes(f.cols(), f.nnz(), true);
  if (model.dropout > 0) {
    const auto kept = static_cast<std::int64_t>(static_cast<double>(f.nnz()) * (1 - model.dropout));
    bytes += f.nnz() * kFloat + csr_bytes(f.rows(), kept, true) + csr_bytes(f.cols(), kept, true);
  }
  return bytes * rows / n;
}

// Â as a rank's layout holds it: its owned rows over its columns (rows = cols but for a
// halo), entries, those of them in halo columns (-1: no halo), whether it equals its
// transpose, and what it keeps beside its pattern.
struct LayoutShape {
  std::int64_t rows = 0, cols = 0, nnz = 0, halo_entries = -1;
  bool symmetric = false;
  MatrixForm form;
};

// Â as the layout holds it, and the copies the backend multiplies (block_rows.h). With a
// halo, the split by columns instead of Â: Â[:, owned], its transpose unless Â is
// symmetric, and Â[:, halo] with its transpose. Otherwise the whole matrix (evaluation) and
// each chunk's rows are the layout's own, and with one chunk (or chunk_transposes false: a
// whole backward) its transpose is too where Â is symmetric. With several chunks and a
// backward chunk by chunk, each chunk's rows' transpose over the columns they touch (at most
// all its entries and at most all columns). A model that reads the entries one by one
// (attention) keeps Â whole, unsplit, and per block (every row, and each chunk) its entries
// by column (BlockEntries).
std::int64_t layout_bytes(const LayoutShape& s, int chunks, bool per_entry,
                          bool chunk_transposes = true) {
  const auto matrix = [&](std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                          bool transposed = false) {
    return propagation_bytes(rows, cols, nnz, s.form, transposed);
  };
  const std::int64_t rows = s.rows, cols = s.cols, nnz = s.nnz;
  // Each column's global id (RowLayout::order, which a host backend reads in place), each
  // row's label and masks with their index.
  const std::int64_t ids_and_labels = cols * 8 + rows * (4 + 3);
  if (per_entry) {
    const std::int64_t blocks = chunks == 1 ? 1 : 2;
    const std::int64_t by_column = nnz * (kOffset + kIndex) + rows * kOffset +
                                   std::min(cols * std::int64_t{chunks}, nnz) * (kIndex + kOffset);
    return matrix(rows, cols, nnz) + blocks * by_column + ids_and_labels;
  }
  std::int64_t copies = 0;
  if (chunks > 1 && chunk_transposes) {  // over the touched columns, a list of them too
    const std::int64_t touched = std::min(static_cast<std::int64_t>(chunks) * cols, nnz);
    const MatrixForm& f = s.form;
    copies +=
        nnz * kIndex + touched * (kIndex + kOffset) +
        ((f.values ? nnz : 0) + (f.col_scales ? touched : 0) + (f.row_scales ? rows : 0)) * kFloat;
  }
  if (s.halo_entries >= 0) {
    const std::int64_t inner = matrix(rows, rows, nnz - s.halo_entries);
    const std::int64_t outer = matrix(rows, cols - rows, s.halo_entries);
    const std::int64_t outer_t = matrix(cols - rows, rows, s.halo_entries, true);
    return inner + (s.symmetric ? 0 : inner) + outer + outer_t + copies + ids_and_labels;
  }
  if ((chunks == 1 || !chunk_transposes) && !s.symmetric) copies += matrix(cols, rows, nnz, true);
  return matrix(rows, cols, nnz) + copies + ids_and_labels;
}

MatrixForm form_of(const ModelConfig& model, const ChunkPlan& plan) {
  switch (model_type(model.kind).propagation()) {
    case Propagation::kGcn:
      return plan.factored_adjacency ? MatrixForm{false, true, true} : MatrixForm{};
    case Propagation::kMean:
      return {false, true, false};
    case Propagation::kSum:
      return {false, false, false};
  }
  return {};
}

bool reads_entries(const ModelConfig& model) {
  return model_type(model.kind).reads_entries();
}

// Whether the model's propagation matrix holds a self-loop in every row.
bool self_loops(const ModelConfig& model) {
  return has_self_loops(model_type(model.kind).propagation());
}

// The dataset as a rank of a stage holds it: a stage after the first keeps no features'
// values (FeatureMatrix::without_values, which keeps their shape), a hybrid rank of the
// first those of its part's `feature_rows` rows, with their ids (keeping_rows).
std::int64_t dataset_bytes(const Dataset& data, int first_layer, std::int64_t feature_rows) {
  const std::int64_t n = data.adjacency.rows;
  std::int64_t features = 0;
  if (first_layer == 0)
    features = feature_bytes(data.features) * feature_rows / std::max<std::int64_t>(n, 1) +
               (feature_rows < n ? feature_rows * 8 : 0);
  return csr_bytes(n, data.adjacency.nnz(), !data.adjacency.values.empty()) + features +
         n * (4 + 3);
}

// The backward pass's per-block scratch (which only grows): gradients of one block's rows
// and of the columns its rows touch, at most the block's entries and at most every column.
// A whole backward (--stale-grad exact) runs one block of every row even when chunked.
std::int64_t scratch_bytes(const ModelType& type, const ModelConfig& m, int first, int last,
                           const StageRows& rows, std::int64_t entries, const ChunkPlan& plan) {
  const int blocks = plan.whole_backward ? 1 : plan.chunks;
  const std::int64_t block = (rows.owned + blocks - 1) / blocks;
  const std::int64_t touched =
      blocks > 1 ? std::min(rows.columns, (entries + blocks - 1) / blocks) : 0;
  return (type.scratch_floats(m, first, last, rows, block) +
          touched * type.stage_width(m, first, last)) *
         kFloat;
}

// A stage's buffers over `cols` rows (owned and halo) and its parameters (value,
// gradient, gradient sum in the backend's type unless that is float, two Adam moments).
void add_stage(MemoryEstimate& e, const ModelConfig& model, const StageBounds& bounds, int stage,
               const PartSizes& part, const ChunkPlan& plan, bool halo, DType gradient_type) {
  const int chunks = plan.chunks;
  const ModelType& type = model_type(model.kind);
  const int first = bounds[stage], last = bounds[stage + 1];
  const std::int64_t cols = part.owned + part.halo;
  const bool whole_backward = chunks > 1 && plan.whole_backward;
  const StageRows rows{
      part.owned,   cols,          chunks > 1 && !halo, (chunks == 1 || whole_backward) && !halo,
      chunks == 1,  halo,          plan.recompute,      plan.storage == RowCodec::kBf16,
      part.entries, whole_backward};
  e.activations = type.stage_floats(model, first, last, rows) * kFloat;
  e.activations += scratch_bytes(type, model, first, last, rows, part.entries, plan);
  // Halo exchange buffers (halo_exchange.h), which only grow and are shared by every chunk's
  // exchange and the whole graph's (evaluation): the sent rows, packed forward and
  // received backward; and the halo rows, which travel in place as float32 and packed in
  // another wire format.
  const std::int64_t width = type.stage_width(model, first, last);
  const std::int64_t row = std::max(row_codec_bytes(plan.wire.forward, width),
                                    row_codec_bytes(plan.wire.backward, width));
  std::int64_t halo_row = 0;
  for (const RowCodec codec : {plan.wire.forward, plan.wire.backward})
    if (codec != RowCodec::kFloat32) halo_row = std::max(halo_row, row_codec_bytes(codec, width));
  e.activations += part.sent * row + part.halo * halo_row;
  // Encoded stage rows (stage_wire.h): every chunk's message of a pass, and one received.
  if (bounds.size() > 2 && plan.wire != RowCodecs{}) e.activations += 2 * part.owned * row;
  const auto [begin, end] = stage_tensor_range(model, first, last);
  std::int64_t count = 0;
  const std::vector<TensorShape> shapes = parameter_shapes(model);
  for (std::size_t t = begin; t < end; ++t) count += shapes[t].size();
  const std::int64_t sums = gradient_type == DType::kFloat32 ? 0 : dtype_size(gradient_type);
  e.parameters = count * (4 + 4 + sums + 8);
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
      ++sizes.halo_entries;
      if (q >= sent_to.size()) sent_to.resize(q + 1, 0);
      if (sent_to[q] != v + 1) sent_to[q] = v + 1, ++sizes.sent;
      if (!seen[u]) seen[u] = true, ++sizes.halo;
    }
  }
  return sizes;
}

MemoryEstimate estimate_pipeline_memory(const Dataset& data, const ModelConfig& model,
                                        const StageBounds& bounds, int stage, const ChunkPlan& plan,
                                        DType gradient_type) {
  const std::int64_t n = data.adjacency.rows;
  const std::int64_t nnz = data.adjacency.nnz() + (self_loops(model) ? n : 0);
  MemoryEstimate e;
  e.dataset = dataset_bytes(data, bounds[stage], n);
  const bool symmetric = self_loops(model) && is_symmetric(data.adjacency);
  e.layout = layout_bytes({n, n, nnz, -1, symmetric, form_of(model, plan)}, plan.chunks,
                          reads_entries(model), !plan.whole_backward);
  if (bounds[stage] == 0)  // several chunks: rows in an order of their own
    e.features = first_stage_feature_bytes(data.features, model, n, plan.chunks == 1);
  add_stage(e, model, bounds, stage, {n, 0, nnz}, plan, false, gradient_type);
  return e;
}

MemoryEstimate estimate_hybrid_memory(const Dataset& data, const ModelConfig& model,
                                      const StageBounds& bounds, int stage, const ChunkPlan& plan,
                                      const PartSizes& part, DType gradient_type) {
  const std::int64_t n = data.adjacency.rows, rows = part.owned + part.halo;
  if (part.owned == n)
    return estimate_pipeline_memory(data, model, bounds, stage, plan, gradient_type);
  MemoryEstimate e;
  e.dataset = dataset_bytes(data, bounds[stage], part.owned);
  PartSizes sizes = part;
  if (!self_loops(model)) sizes.entries -= part.owned;
  const bool symmetric = self_loops(model) && is_symmetric(data.adjacency);
  const MatrixForm form = form_of(model, plan);
  e.layout = layout_bytes({part.owned, rows, sizes.entries, part.halo_entries, symmetric, form},
                          plan.chunks, reads_entries(model), !plan.whole_backward);
  if (bounds[stage] == 0)  // the part's rows, a subset
    e.features = first_stage_feature_bytes(data.features, model, part.owned, false);
  add_stage(e, model, bounds, stage, sizes, plan, true, gradient_type);
  // Building the local rows normalizes and permutes the whole Â once, then frees both;
  // GCN's factored (row_layout.cpp's part_layout).
  ChunkPlan factored = plan;
  factored.factored_adjacency = true;
  e.setup = 2 * propagation_bytes(n, n, data.adjacency.nnz() + n, form_of(model, factored));
  return e;
}

MemoryEstimate estimate_shard_memory(const Csr& adjacency, const FeatureMatrix& features,
                                     bool interior_first, const ModelConfig& model,
                                     const PartSizes& part, ChunkPlan plan, DType gradient_type) {
  MemoryEstimate e;
  // The shard as loaded: its rows, features, labels and masks; per column a global id and a
  // degree; the halo plan's send and receive lists.
  e.dataset = csr_bytes(adjacency.rows, adjacency.nnz(), !adjacency.values.empty()) +
              feature_bytes(features) + part.owned * (4 + 3) + (part.owned + part.halo) * (8 + 4) +
              (part.sent + part.halo) * kIndex;
  PartSizes sizes = part;
  if (!self_loops(model)) sizes.entries -= part.owned;
  e.layout = layout_bytes({part.owned, part.owned + part.halo, sizes.entries, part.halo_entries,
                           self_loops(model), form_of(model, plan)},
                          1, reads_entries(model));
  e.features = first_stage_feature_bytes(features, model, features.rows(), interior_first);
  plan.chunks = 1;
  add_stage(e, model, {0, model.num_layers}, 0, sizes, plan, true, gradient_type);
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
