#include "strata/pipeline/stage_halo.h"

#include "strata/kernels/kernels.h"

namespace strata {

StageHalo::StageHalo(const HybridLayout& layout, Communicator& group)
    : owned_(layout.owned),
      halo_(layout.halo),
      whole_(layout.whole_plan, layout.owned, layout.halo, group) {
  for (const HaloPlan& plan : layout.chunk_plans) {
    chunks_.emplace_back(plan, owned_, halo_, group);
    std::vector<LocalId>& rows = chunk_halo_rows_.emplace_back();
    for (const auto& list : plan.recv) rows.insert(rows.end(), list.begin(), list.end());
  }
}

HaloExchange& StageHalo::exchange_of(const ChunkBlock& b) {
  if (b.chunk < 0) return whole_;
  STRATA_CHECK(b.chunk < static_cast<int>(chunks_.size()), "chunk ", b.chunk, " of ",
               chunks_.size());
  return chunks_[static_cast<std::size_t>(b.chunk)];
}

void StageHalo::forward(const ChunkBlock& b, Matrix& rows, bool training) {
  exchange_of(b).forward(rows.view(), training ? CommCategory::kHaloForward : CommCategory::kEval);
}

void StageHalo::backward(const ChunkBlock& b, Matrix& gradient) {
  exchange_of(b).backward(gradient.view(), CommCategory::kHaloBackward);
  const MatrixView g = gradient.view();
  if (b.chunk < 0) {
    kernels::zero(g.rows_range(owned_, owned_ + halo_));
    return;
  }
  for (LocalId l : chunk_halo_rows_[static_cast<std::size_t>(b.chunk)])
    std::fill(g.row(l), g.row(l) + g.cols, 0.0f);
}

}  // namespace strata
