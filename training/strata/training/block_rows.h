// A rank's rows as its stage's layers see them (layers/block_graph.h): the row layout's
// propagation matrix in a backend's memory, its blocks, and the stage's halo exchange.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "strata/kernels/backend.h"
#include "strata/layers/block_entries.h"
#include "strata/layers/block_graph.h"
#include "strata/training/row_layout.h"
#include "strata/training/stage_halo.h"

namespace strata {

// A block of every row with a halo multiplies Â's owned columns and its halo columns
// apart: the halo rows' exchange, started by exchange(), travels while the owned
// columns are multiplied (overlap), or ends before (no overlap); the arithmetic is the same.
// With its pieces (BlockGraph::pieces), a layer computes the interior rows whole while the
// halo travels: row layouts number them first (interior_first in row_layout.h).
class BlockRows : public BlockGraph {
 public:
  // layout and halo (nullptr without a halo) must outlive this. With a halo every product
  // goes through the split of Â by columns, made here (a chunk's rows multiply its owned
  // columns, then its halo columns, adding to the sums as one pass over the row would):
  // the layout's own Â is then freed (layout.a_hat left empty).
  // keeps_entries: the model reads Â's entries (entries()): Â stays whole, not split.
  BlockRows(RowLayout& layout, const kernels::Backend& backend, StageHalo* halo,
            bool overlap = true, bool keeps_entries = false);

  LocalId rows() const override { return layout_.owned; }
  LocalId columns() const override { return layout_.owned + layout_.halo; }
  bool has_halo() const override { return halo_ != nullptr; }
  bool chunked() const override { return layout_.chunk_count() > 1; }
  const GlobalId* ids(const Block& b) const override { return ids_data_ + b.begin; }

  void aggregate(const Block& b, ConstMatrixView x, MatrixView out) override;
  void aggregate_bf16(const Block& b, Bf16RowsView x, MatrixView out) override;
  void scatter_gradient(const Block& b, ConstMatrixView grad, MatrixView g) override;
  void transpose_multiply(const Block& b, ConstMatrixView grad, MatrixView out) override;
  std::vector<Block> pieces(const Block& b) const override;
  void progress() override {
    if (halo_) halo_->progress();
  }
  void exchange(const Block& b, MatrixView x, bool training) override;
  void exchange_gradient(const Block& b, MatrixView g) override;
  const kernels::EdgeBlock& entries(const Block& b) override;
  std::int64_t entry_count() const override { return layout_.a_hat.nnz(); }
  // Called after each product of a chunk's rows: MPI moves the stage rows a pipeline rank
  // has in flight only inside its calls, so it must be called while the rank computes.
  void set_progress(std::function<void()> progress) { progress_ = std::move(progress); }

 private:
  // A chunk's rows of Â (with a halo: over the owned columns, and halo_rows over the
  // halo's), and their transpose over the columns they touch, each made on first use
  // (evaluation never needs a transpose).
  struct Chunk {
    std::unique_ptr<kernels::SparseMatrix> rows, halo_rows, transposed;
    kernels::Buffer touched;
    std::int64_t touched_count = 0;
  };
  // Â[:, owned] in pieces of rows (between two, the exchange in flight moves on) and
  // Â[:, halo]; their transposes likewise, for the backward. Made on first use.
  struct Split {
    // Â[:, owned], its transpose (empty where it is symmetric), Â[:, halo] and its
    // transpose: the arrays a host backend multiplies in place.
    Csr inner, inner_transposed, outer, outer_transposed;
    std::vector<std::unique_ptr<kernels::SparseMatrix>> owned, owned_transposed;
    std::vector<LocalId> piece_starts;  // piece i: rows [starts[i], starts[i + 1])
    std::unique_ptr<kernels::SparseMatrix> halo, halo_transposed;
    std::unique_ptr<kernels::SparseMatrix> boundary_halo;  // Â[interior:, halo]
  };
  bool whole(const Block& b) const { return b.begin == 0 && b.end == layout_.owned; }
  // Every row, as one block: every rank of the stage runs it at the same point (a chunk
  // that happens to hold every row of this part is not one: the other parts run theirs).
  bool split_whole(const Block& b) const {
    return halo_ != nullptr && whole(b) && (b.chunk < 0 || layout_.chunk_count() == 1);
  }
  Chunk& chunk(const Block& b);
  kernels::SparseMatrix& chunk_rows(const Block& b);  // Â's rows of b, not split (made once)
  // Whether Â lies split by columns (split_) instead of in layout_.a_hat.
  bool split_by_columns() const { return halo_ != nullptr && !keeps_entries_; }
  void aggregate_chunk(const Block& b, ConstMatrixView x, MatrixView out);
  // Rows [b.begin, b.end) of Â over every column, as a CSR of their own.
  Csr rows_copy(const Block& b);
  kernels::SparseMatrix& slice(const Block& b);  // b: a kRowSlice
  kernels::SparseMatrix& whole_matrix();         // the layout's Â, viewed where the backend can
  kernels::SparseMatrix& transposed_whole();
  Split& split();
  std::unique_ptr<kernels::SparseMatrix> rows_of(const Csr& a, const Block& b) const;
  void aggregate_split(ConstMatrixView x, MatrixView out);
  // out (the piece's rows) = Â[piece, owned] x[owned], then for a boundary piece
  // out += Â[piece, halo] x[halo] once the halo is in.
  void aggregate_piece(const Block& piece, ConstMatrixView x, MatrixView out);
  void aggregate_halo_slice(const Block& b, ConstMatrixView x, MatrixView out);
  void multiply_owned(const Block& rows, ConstMatrixView x, MatrixView out);
  void scatter_split(ConstMatrixView grad, MatrixView g);
  // Ends an exchange still in flight (a forward one whose rows nothing aggregated).
  void settle();

  const RowLayout& layout_;
  const kernels::Backend& backend_;
  StageHalo* halo_;
  bool overlap_;
  std::function<void()> progress_;
  kernels::Buffer ids_;       // a device backend's copy of layout.order
  const GlobalId* ids_data_;  // layout.order itself on a host backend
  std::vector<Chunk> chunks_;
  std::unique_ptr<kernels::SparseMatrix> a_hat_, a_hat_transposed_;  // every row at once
  std::optional<bool> symmetric_;  // whether Â is its own transpose, once asked
  std::map<LocalId, std::unique_ptr<kernels::SparseMatrix>> slices_;  // by first row
  std::optional<Split> split_;  // every row at once, with a halo
  bool keeps_entries_;
  std::map<int, BlockEntries> entries_;  // by chunk (-1: every row)
  kernels::Buffer scratch_;
};

}  // namespace strata
