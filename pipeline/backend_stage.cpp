#include "strata/pipeline/backend_stage.h"

#include "strata/pipeline/backend_gcn_stage.h"
#include "strata/pipeline/backend_gcnii_stage.h"

namespace strata {
namespace {

// Rows [begin, end) of a as a CSR of their own (offsets from zero, every column kept).
Csr row_block_copy(const Csr& a, LocalId begin, LocalId end) {
  Csr c;
  c.rows = end - begin;
  c.cols = a.cols;
  const EdgeOffset first = a.offsets[begin], last = a.offsets[end];
  c.offsets.clear();
  for (LocalId r = begin; r <= end; ++r) c.offsets.push_back(a.offsets[r] - first);
  c.indices.assign(a.indices.begin() + first, a.indices.begin() + last);
  if (!a.values.empty()) c.values.assign(a.values.begin() + first, a.values.begin() + last);
  return c;
}

std::vector<TensorShape> shapes_of(const ModelConfig& model,
                                   std::pair<std::size_t, std::size_t> tensors) {
  const std::vector<TensorShape> all = parameter_shapes(model);
  STRATA_CHECK(tensors.first <= tensors.second && tensors.second <= all.size(), "stage tensors [",
               tensors.first, ", ", tensors.second, ") of ", all.size());
  return {all.begin() + static_cast<std::ptrdiff_t>(tensors.first),
          all.begin() + static_cast<std::ptrdiff_t>(tensors.second)};
}

}  // namespace

BackendBlocks::BackendBlocks(const ChunkLayout& layout, const kernels::Backend& backend)
    : layout_(layout),
      backend_(backend),
      ids_(kernels::to_backend<GlobalId>(backend, layout.order)),
      entries_(static_cast<std::size_t>(layout.chunks()) + 1) {}

BackendBlocks::Entry& BackendBlocks::entry(const ChunkBlock& b) {
  STRATA_CHECK(b.chunk < layout_.chunks(), "block of chunk ", b.chunk, " of ", layout_.chunks());
  return entries_[b.chunk < 0 ? entries_.size() - 1 : static_cast<std::size_t>(b.chunk)];
}

void BackendBlocks::aggregate(const ChunkBlock& b, ConstMatrixView x, MatrixView out) {
  Entry& e = entry(b);
  if (!e.rows) e.rows = backend_.sparse(row_block_copy(layout_.a_hat, b.begin, b.end).view());
  e.rows->multiply(x, out);
}

// The transposed rows are copied in on the first backward: evaluation never needs them.
void BackendBlocks::scatter_gradient(const ChunkBlock& b, ConstMatrixView grad, MatrixView g) {
  Entry& e = entry(b);
  if (!e.transposed) {
    e.transposed = backend_.sparse(b.transposed.view());
    e.touched = kernels::to_backend<LocalId>(backend_, b.touched);
    e.touched_count = static_cast<std::int64_t>(b.touched.size());
  }
  const auto bytes = static_cast<std::size_t>(e.touched_count * grad.cols) * sizeof(float);
  if (scratch_.bytes() < bytes) scratch_ = kernels::Buffer(backend_, bytes);
  const MatrixView touched{scratch_.as<float>(), e.touched_count, grad.cols, grad.cols};
  e.transposed->multiply(grad, touched);
  backend_.scatter_rows(touched.data, e.touched.as<LocalId>(), e.touched_count, g, true);
}

BackendStage::BackendStage(const BackendStageSetup& setup,
                           std::pair<std::size_t, std::size_t> tensors)
    : backend_(setup.backend),
      model_(setup.model),
      layout_(setup.layout),
      blocks_(setup.blocks),
      stale_(setup.stale),
      halo_(setup.halo),
      parameters_(setup.backend, shapes_of(setup.model, tensors),
                  initial_parameters(setup.model, tensors.first, tensors.second - tensors.first)) {
  if (setup.features) features_.emplace(backend_features(backend_, *setup.features));
}

void BackendStage::drop(MatrixView m, const ChunkBlock& b, int layer) const {
  if (dropping()) backend_.dropout(m, blocks_.ids(b), model_.dropout, model_.seed, epoch_, layer);
}

BackendFeatures& BackendStage::dropped_features() {
  features_->drop(blocks_.ids(every_row()), dropping() ? model_.dropout : 0.0f, model_.seed,
                  epoch_);
  return *features_;
}

void BackendStage::take_gradient(kernels::Tensor& g, const ChunkBlock& b, MatrixView out) const {
  const MatrixView block = rows(g, b);
  backend_.copy(block, out);
  backend_.zero(block.data, static_cast<std::size_t>(block.rows * block.cols) * sizeof(float));
}

void BackendStage::zero(kernels::Tensor& t) const {
  backend_.zero(t.data(), static_cast<std::size_t>(t.size()) * sizeof(float));
}

MatrixView BackendStage::scratch(int which, std::int64_t r, std::int64_t c) {
  const auto i = static_cast<std::size_t>(which);
  if (scratch_.size() <= i) scratch_.resize(i + 1);
  const auto bytes = static_cast<std::size_t>(r * c) * sizeof(float);
  if (scratch_[i].bytes() < bytes) scratch_[i] = kernels::Buffer(backend_, bytes);
  return {scratch_[i].as<float>(), r, c, c};
}

BackendFeatures backend_features(const kernels::Backend& backend, const FeatureMatrix& features) {
  if (features.is_sparse()) return BackendFeatures(backend, features.sparse().view());
  return BackendFeatures(backend, features.dense().view());
}

// gcn: two tensors a layer with bias, one without. gcnii: the input linear (2 tensors) on
// the first stage, one per conv, the output linear (2) on the last.
std::pair<std::size_t, std::size_t> stage_tensor_range(const ModelConfig& model, int first,
                                                       int last) {
  const auto f = static_cast<std::size_t>(first), l = static_cast<std::size_t>(last);
  if (model.kind == ModelKind::kGcn) {
    const std::size_t per_layer = model.bias ? 2 : 1;
    return {f * per_layer, l * per_layer};
  }
  const bool last_stage = last == model.num_layers;
  return {first == 0 ? 0 : 2 + f, 2 + l + (last_stage ? 2 : 0)};
}

std::unique_ptr<BackendStage> make_backend_stage(const BackendStageSetup& setup, int first,
                                                 int last) {
  if (setup.model.kind == ModelKind::kGcnii)
    return std::make_unique<BackendGcniiStage>(setup, first, last);
  return std::make_unique<BackendGcnStage>(setup, first, last);
}

}  // namespace strata
