// How a model's layers see the graph. A stage computes its rows block by block: a block
// is one chunk of the rows (pipeline and hybrid mode), or every row at once (local and
// graph mode, exact epochs, evaluation). Aggregating a block reads rows of every column:
// those of blocks not yet computed this epoch hold their last values (the history), and
// those other parts own (the halo) arrive through an exchange. training/ implements this
// over a row layout and a communicator; a layer knows nothing of either.
//
// Every view handed in or out is in the stage's backend memory.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/matrix.h"
#include "strata/core/types.h"
#include "strata/kernels/attention.h"

namespace strata {

// Rows [begin, end) of a stage's buffers: one chunk, or every row (chunk -1), or a piece
// of every row (BlockGraph::pieces).
struct Block {
  LocalId begin = 0, end = 0;
  int chunk = -1;
  LocalId size() const { return end - begin; }
};
inline constexpr int kInteriorPiece = -2, kBoundaryPiece = -3;
// Rows of a block of every row, aggregated a slice at a time (StageSetup::recompute); only
// where no halo exists.
inline constexpr int kRowSlice = -4;

class BlockGraph {
 public:
  virtual ~BlockGraph() = default;
  // Rows the stage computes (owned), and rows aggregation reads: owned first, then halo.
  virtual LocalId rows() const = 0;
  virtual LocalId columns() const = 0;
  Block every_row() const { return {0, rows(), -1}; }
  // Whether other parts own some of the columns (graph and hybrid mode with parts > 1).
  virtual bool has_halo() const = 0;
  // Whether the rows are split into several chunks, so that some rows are read from history.
  virtual bool chunked() const = 0;
  // The global ids of b's rows, in backend memory (they key the dropout masks); b may
  // reach past rows() into the halo columns.
  virtual const GlobalId* ids(const Block& b) const = 0;

  // out (b.size() x w) = Â[b, :] · x, x holding columns() rows.
  virtual void aggregate(const Block& b, ConstMatrixView x, MatrixView out) = 0;
  // The same with x's rows in bf16 (a stage's history stored so, StageSetup::storage):
  // only where no halo exists.
  virtual void aggregate_bf16(const Block& b, Bf16RowsView x, MatrixView out) = 0;
  // g[c] += Σ_{r in b} Â[r, c] · grad[r], g holding columns() rows.
  virtual void scatter_gradient(const Block& b, ConstMatrixView grad, MatrixView g) = 0;
  // out (columns() x w) = Â[b, :]ᵀ · grad: what scatter_gradient adds to a zero g.
  virtual void transpose_multiply(const Block& b, ConstMatrixView grad, MatrixView out) = 0;
  // The entries of Â's rows b and the same entries column by column, for per-entry
  // kernels (attention: kernels::EdgeBlock); made on first use. After exchange(b, x) it
  // waits for the halo rows. Only where the graph was made to keep them (keeps_entries).
  virtual const kernels::EdgeBlock& entries(const Block& b) = 0;
  // Entries of every row: the length of an array holding one value per entry.
  virtual std::int64_t entry_count() const = 0;
  // b in the order a layer should compute it while b's halo travels: pieces of the rows
  // that read no halo column and that no other part reads (kInteriorPiece), which a layer
  // computes whole, calling progress() between them, then the other rows (kBoundaryPiece),
  // whose aggregation waits for the halo and whose gradient needs the owners' share (see
  // exchange_gradient). {b} where there is nothing to split. The pieces depend on the graph
  // only, never on whether the exchange overlaps, so the arithmetic is the same either way.
  virtual std::vector<Block> pieces(const Block& b) const { return {b}; }
  // Lets the exchanges in flight move on (MPI moves data only inside its calls).
  virtual void progress() {}
  // Fills the halo rows of x that b's chunk reads (every halo row for a whole block) from
  // their owners; counted as halo_fwd in training, else as eval. No-op without a halo.
  virtual void exchange(const Block& b, MatrixView x, bool training) = 0;
  // Adds the halo rows of g that b's chunk scattered into (gradient for other parts'
  // rows) into their owners' rows, and zeroes them here. No-op without a halo. The rows of
  // b's interior pieces are complete before it: no other part adds to them.
  virtual void exchange_gradient(const Block& b, MatrixView g) = 0;
};

}  // namespace strata
