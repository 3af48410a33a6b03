// A rank's rows as its stage's layers see them (layers/block_graph.h): the row layout's
// propagation matrix in a backend's memory, its blocks, and the stage's halo exchange.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "strata/kernels/backend.h"
#include "strata/layers/block_graph.h"
#include "strata/training/row_layout.h"
#include "strata/training/stage_halo.h"

namespace strata {

class BlockRows : public BlockGraph {
 public:
  // layout and halo (nullptr without a halo) must outlive this.
  BlockRows(const RowLayout& layout, const kernels::Backend& backend, StageHalo* halo);

  LocalId rows() const override { return layout_.owned; }
  LocalId columns() const override { return layout_.owned + layout_.halo; }
  bool has_halo() const override { return halo_ != nullptr; }
  bool chunked() const override { return layout_.chunk_count() > 1; }
  const GlobalId* ids(const Block& b) const override { return ids_.as<GlobalId>() + b.begin; }

  void aggregate(const Block& b, ConstMatrixView x, MatrixView out) override;
  void scatter_gradient(const Block& b, ConstMatrixView grad, MatrixView g) override;
  void transpose_multiply(const Block& b, ConstMatrixView grad, MatrixView out) override;
  void exchange(const Block& b, MatrixView x, bool training) override;
  void exchange_gradient(const Block& b, MatrixView g) override;

 private:
  // A chunk's rows of Â, and their transpose over the columns they touch, each made on
  // first use (evaluation never needs a transpose).
  struct Chunk {
    std::unique_ptr<kernels::SparseMatrix> rows, transposed;
    kernels::Buffer touched;
    std::int64_t touched_count = 0;
  };
  bool whole(const Block& b) const { return b.begin == 0 && b.end == layout_.owned; }
  Chunk& chunk(const Block& b);
  kernels::SparseMatrix& transposed_whole();

  const RowLayout& layout_;
  const kernels::Backend& backend_;
  StageHalo* halo_;
  kernels::Buffer ids_;
  std::vector<Chunk> chunks_;
  std::unique_ptr<kernels::SparseMatrix> a_hat_, a_hat_transposed_;  // every row at once
  kernels::Buffer scratch_;
};

}  // namespace strata
