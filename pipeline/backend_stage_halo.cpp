#include "strata/pipeline/backend_stage_halo.h"

namespace strata {

BackendStageHalo::BackendStageHalo(const HybridLayout& layout, Communicator& group,
                                   const kernels::Backend& backend)
    : backend_(backend),
      owned_(layout.owned),
      halo_(layout.halo),
      whole_(layout.whole_plan, group, backend) {
  for (const HaloPlan& plan : layout.chunk_plans) {
    chunks_.emplace_back(plan, group, backend);
    std::vector<LocalId> rows;
    for (const auto& list : plan.recv) rows.insert(rows.end(), list.begin(), list.end());
    chunk_halo_rows_.push_back(kernels::to_backend<LocalId>(backend, rows));
    chunk_halo_counts_.push_back(static_cast<std::int64_t>(rows.size()));
  }
}

BackendHaloExchange& BackendStageHalo::exchange_of(const ChunkBlock& b) {
  if (b.chunk < 0) return whole_;
  STRATA_CHECK(b.chunk < static_cast<int>(chunks_.size()), "chunk ", b.chunk, " of ",
               chunks_.size());
  return chunks_[static_cast<std::size_t>(b.chunk)];
}

void BackendStageHalo::forward(const ChunkBlock& b, kernels::Tensor& rows, bool training) {
  exchange_of(b).forward(rows.view(), training ? CommCategory::kHaloForward : CommCategory::kEval);
}

void BackendStageHalo::backward(const ChunkBlock& b, kernels::Tensor& gradient) {
  exchange_of(b).backward(gradient.view(), CommCategory::kHaloBackward);
  const MatrixView g = gradient.view();
  if (b.chunk < 0) {
    const MatrixView halo = g.rows_range(owned_, owned_ + halo_);
    backend_.zero(halo.data, static_cast<std::size_t>(halo.rows * halo.cols) * sizeof(float));
    return;
  }
  const auto c = static_cast<std::size_t>(b.chunk);
  const auto bytes = static_cast<std::size_t>(chunk_halo_counts_[c] * g.cols) * sizeof(float);
  if (zeros_.bytes() < bytes) {
    zeros_ = kernels::Buffer(backend_, bytes);
    backend_.zero(zeros_.data(), zeros_.bytes());
  }
  backend_.scatter_rows(zeros_.as<float>(), chunk_halo_rows_[c].as<LocalId>(),
                        chunk_halo_counts_[c], g, false);
}

}  // namespace strata
