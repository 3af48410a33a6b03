#include "strata/training/stage_halo.h"

#include "strata/core/random.h"

namespace strata {

StageHalo::StageHalo(const RowLayout& layout, Communicator& group, const kernels::Backend& backend,
                     RowCodecs codecs)
    : backend_(backend),
      owned_(layout.owned),
      halo_(layout.halo),
      buffers_(std::make_shared<HaloBuffers>()),
      whole_(layout.whole_plan, group, backend, codecs, buffers_) {
  for (const HaloPlan& plan : layout.chunk_plans) {
    chunks_.emplace_back(plan, group, backend, codecs, buffers_);
    std::vector<LocalId> rows;
    for (const auto& list : plan.recv) rows.insert(rows.end(), list.begin(), list.end());
    chunk_halo_rows_.push_back(kernels::to_backend<LocalId>(backend, rows));
    chunk_halo_counts_.push_back(static_cast<std::int64_t>(rows.size()));
  }
}

void StageHalo::begin_pass(std::uint64_t key) {
  whole_.begin_pass(key);
  for (std::size_t c = 0; c < chunks_.size(); ++c) chunks_[c].begin_pass(hash_key(key, c + 1));
}

HaloExchange& StageHalo::exchange_of(const Block& b) {
  if (b.chunk < 0) return whole_;
  STRATA_CHECK(b.chunk < static_cast<int>(chunks_.size()), "chunk ", b.chunk, " of ",
               chunks_.size());
  return chunks_[static_cast<std::size_t>(b.chunk)];
}

void StageHalo::forward(const Block& b, MatrixView rows, bool training) {
  exchange_of(b).forward(rows, training ? CommCategory::kHaloForward : CommCategory::kEval);
}

void StageHalo::start_forward(MatrixView rows, bool training, bool blocking) {
  whole_.start_forward(rows, training ? CommCategory::kHaloForward : CommCategory::kEval, blocking);
}

void StageHalo::start_backward(MatrixView g, bool blocking) {
  whole_.start_backward(g, CommCategory::kHaloBackward, blocking);
  whole_gradient_ = g;
}

void StageHalo::finish() {
  whole_.finish();
  if (!whole_gradient_) return;
  const MatrixView halo = whole_gradient_->rows_range(owned_, owned_ + halo_);
  backend_.zero(halo.data, static_cast<std::size_t>(halo.rows * halo.cols) * sizeof(float));
  whole_gradient_.reset();
}

void StageHalo::backward(const Block& b, MatrixView g) {
  if (b.chunk < 0) {
    start_backward(g, true);
    finish();
    return;
  }
  exchange_of(b).backward(g, CommCategory::kHaloBackward);
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
