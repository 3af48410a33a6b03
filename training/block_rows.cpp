#include "strata/training/block_rows.h"

#include <algorithm>

namespace strata {

namespace {

// Rows per piece of the owned columns' product: about a millisecond of SpMM at width 64
// on a CPU core, so that MPI, which moves data only inside its calls, is called often
// enough to keep a link busy.
constexpr LocalId kRowsPerPiece = 2048;

}  // namespace

BlockRows::BlockRows(RowLayout& layout, const kernels::Backend& backend, StageHalo* halo,
                     bool overlap, bool keeps_entries)
    : layout_(layout),
      backend_(backend),
      halo_(halo),
      overlap_(overlap),
      ids_(backend.host_memory() ? kernels::Buffer()
                                 : kernels::to_backend<GlobalId>(backend, layout.order)),
      ids_data_(backend.host_memory() ? layout.order.data() : ids_.as<GlobalId>()),
      chunks_(layout.chunks.size()),
      keeps_entries_(keeps_entries) {
  if (!split_by_columns()) return;
  split();
  layout.a_hat = Csr{};
}

std::vector<Block> BlockRows::pieces(const Block& b) const {
  const LocalId interior = layout_.interior;
  if (!split_whole(b) || interior == 0 || interior == layout_.owned) return {b};
  std::vector<Block> out;
  for (LocalId r = 0; r < interior; r += kRowsPerPiece)
    out.push_back({r, std::min(r + kRowsPerPiece, interior), kInteriorPiece});
  out.push_back({interior, layout_.owned, kBoundaryPiece});
  return out;
}

BlockRows::Chunk& BlockRows::chunk(const Block& b) {
  STRATA_CHECK(b.chunk >= 0 && b.chunk < layout_.chunk_count(), "block of chunk ", b.chunk, " of ",
               layout_.chunk_count());
  return chunks_[static_cast<std::size_t>(b.chunk)];
}

// A block of every row multiplies the whole matrix (local and graph mode take this path
// every time); a chunk its own rows.
void BlockRows::aggregate(const Block& b, ConstMatrixView x, MatrixView out) {
  if (b.chunk == kRowSlice) {
    if (halo_ != nullptr)
      aggregate_halo_slice(b, x, out);
    else
      slice(b).multiply(x, out);
    return;
  }
  if (b.chunk == kInteriorPiece || b.chunk == kBoundaryPiece) {
    aggregate_piece(b, x, out);
    return;
  }
  if (split_whole(b)) {
    aggregate_split(x, out);
    return;
  }
  settle();
  if (whole(b) && !split_by_columns()) {
    whole_matrix().multiply(x, out);
    return;
  }
  aggregate_chunk(b, x, out);
  if (progress_) progress_();
}

void BlockRows::aggregate_bf16(const Block& b, Bf16RowsView x, MatrixView out) {
  STRATA_CHECK(halo_ == nullptr && b.chunk != kRowSlice, "bf16 rows aggregated with a halo");
  settle();
  if (whole(b)) {
    whole_matrix().multiply_bf16(x, out);
    return;
  }
  chunk_rows(b).multiply_bf16(x, out);
  if (progress_) progress_();
}

kernels::SparseMatrix& BlockRows::chunk_rows(const Block& b) {
  Chunk& c = chunk(b);
  if (!c.rows) c.rows = rows_of(layout_.a_hat, b);
  return *c.rows;
}

void BlockRows::aggregate_chunk(const Block& b, ConstMatrixView x, MatrixView out) {
  if (!split_by_columns()) {
    chunk_rows(b).multiply(x, out);
    return;
  }
  Chunk& c = chunk(b);
  const LocalId owned = layout_.owned;
  if (!c.rows) {
    const Split& s = split();
    c.rows = rows_of(s.inner, b);
    c.halo_rows = rows_of(s.outer, b);
  }
  c.rows->multiply(x.rows_range(0, owned), out);
  c.halo_rows->multiply(x.rows_range(owned, owned + layout_.halo), out, 1.0f);
}

Csr BlockRows::rows_copy(const Block& b) {
  if (!split_by_columns()) return row_block_copy(layout_.a_hat, b);
  const Split& s = split();
  return join_columns(row_block_copy(s.inner, b), row_block_copy(s.outer, b));
}

kernels::SparseMatrix& BlockRows::whole_matrix() {
  if (!a_hat_) a_hat_ = backend_.sparse_view(layout_.a_hat.view());
  return *a_hat_;
}

// Made once per slice.
kernels::SparseMatrix& BlockRows::slice(const Block& b) {
  STRATA_CHECK(!halo_ && b.begin >= 0 && b.end <= layout_.owned, "slice of rows [", b.begin, ", ",
               b.end, ") of ", layout_.owned, halo_ ? " with a halo" : "");
  std::unique_ptr<kernels::SparseMatrix>& m = slices_[b.begin];
  if (!m || m->rows() != b.size()) m = rows_of(layout_.a_hat, b);
  return *m;
}

// Â of an undirected graph (GCN's normalisation) is its own transpose, bit for bit.
kernels::SparseMatrix& BlockRows::transposed_whole() {
  if (a_hat_transposed_) return *a_hat_transposed_;
  if (split_by_columns()) {  // a chunk of every row, with a halo
    a_hat_transposed_ = backend_.sparse(transpose(rows_copy({0, layout_.owned, 0})).view());
    return *a_hat_transposed_;
  }
  if (!symmetric_) symmetric_ = is_symmetric(layout_.a_hat);
  if (*symmetric_) return whole_matrix();
  a_hat_transposed_ = backend_.sparse(transpose(layout_.a_hat).view());
  return *a_hat_transposed_;
}

void BlockRows::scatter_gradient(const Block& b, ConstMatrixView grad, MatrixView g) {
  settle();
  if (split_whole(b)) {
    scatter_split(grad, g);
    return;
  }
  if (whole(b)) {
    transposed_whole().multiply(grad, g, 1.0f);
    return;
  }
  Chunk& c = chunk(b);
  if (!c.transposed) {
    std::vector<LocalId> touched;
    const Csr rows = rows_copy(b);
    c.transposed = backend_.sparse(transposed_block(rows, {0, b.size(), 0}, touched).view());
    c.touched = kernels::to_backend<LocalId>(backend_, touched);
    c.touched_count = static_cast<std::int64_t>(touched.size());
  }
  const auto bytes = static_cast<std::size_t>(c.touched_count * grad.cols) * sizeof(float);
  if (scratch_.bytes() < bytes) scratch_ = kernels::Buffer(backend_, bytes);
  const MatrixView touched{scratch_.as<float>(), c.touched_count, grad.cols, grad.cols};
  c.transposed->multiply(grad, touched);
  backend_.scatter_rows(touched.data, c.touched.as<LocalId>(), c.touched_count, g, true);
  if (progress_) progress_();
}

void BlockRows::transpose_multiply(const Block& b, ConstMatrixView grad, MatrixView out) {
  settle();
  if (whole(b)) {
    transposed_whole().multiply(grad, out);
    return;
  }
  STRATA_CHECK(out.stride == out.cols, "transpose_multiply into a strided view");
  backend_.zero(out.data, static_cast<std::size_t>(out.rows * out.cols) * sizeof(float));
  scatter_gradient(b, grad, out);
}

void BlockRows::exchange(const Block& b, MatrixView x, bool training) {
  settle();
  if (split_whole(b))
    halo_->start_forward(x, training, !overlap_);
  else if (halo_)
    halo_->forward(b, x, training);
}

// A whole block's gradient exchange that scatter_gradient started only needs its end (a
// layer that scattered by itself, as attention does, starts it here); gradient the blocks
// of chunks scattered is sent whole.
void BlockRows::exchange_gradient(const Block& b, MatrixView g) {
  if (!halo_) return;
  if (split_whole(b)) {
    if (!halo_->backward_pending()) {
      settle();
      halo_->start_backward(g, !overlap_);
    }
    halo_->finish();
    return;
  }
  settle();
  halo_->backward(b, g);
}

// A chunk's entries, or every row's (a whole block, or a chunk holding every row).
const kernels::EdgeBlock& BlockRows::entries(const Block& b) {
  STRATA_CHECK(keeps_entries_, "this graph keeps no entries of its rows");
  settle();
  if (!whole(b)) chunk(b);  // checks that b is one
  const int key = whole(b) ? -1 : b.chunk;
  auto it = entries_.find(key);
  if (it == entries_.end())
    it =
        entries_.try_emplace(key, backend_, layout_.a_hat, b, ids_data_ + b.begin, ids_data_).first;
  return it->second.edges();
}

void BlockRows::settle() {
  if (halo_ && halo_->pending()) halo_->finish();
}

// Rows [b.begin, b.end) of a: where they lie on a host backend, else a copy of its own.
std::unique_ptr<kernels::SparseMatrix> BlockRows::rows_of(const Csr& a, const Block& b) const {
  if (!backend_.host_memory()) return backend_.sparse(row_block_with_values(a, b).view());
  return backend_.sparse_view(rows_view(a, b.begin, b.end));
}

// Â[:, owned] of an undirected graph is symmetric (its rows are in interior-first order,
// not sorted): then its transpose is not kept, and the backward multiplies it, summing each
// row's entries in its order. A device backend keeps copies; the host arrays go.
BlockRows::Split& BlockRows::split() {
  if (split_) return *split_;
  const LocalId owned = layout_.owned;
  Split& s = split_.emplace();
  s.inner = column_range(layout_.a_hat, 0, owned);
  s.inner_transposed = transpose(s.inner);
  const bool symmetric = equal_up_to_row_order(s.inner, s.inner_transposed);
  if (symmetric) s.inner_transposed = Csr{};
  const Csr& inner_t = symmetric ? s.inner : s.inner_transposed;
  s.outer = column_range(layout_.a_hat, owned, owned + layout_.halo);
  s.outer_transposed = transpose(s.outer);
  // The interior's pieces as pieces() cuts them, then the rest's.
  for (LocalId r = 0; r < layout_.interior; r += kRowsPerPiece) s.piece_starts.push_back(r);
  for (LocalId r = layout_.interior; r < owned; r += kRowsPerPiece) s.piece_starts.push_back(r);
  s.piece_starts.push_back(owned);
  for (std::size_t i = 0; i + 1 < s.piece_starts.size(); ++i) {
    const Block piece{s.piece_starts[i], s.piece_starts[i + 1], -1};
    s.owned.push_back(rows_of(s.inner, piece));
    s.owned_transposed.push_back(rows_of(inner_t, piece));
  }
  s.halo = rows_of(s.outer, {0, owned, -1});
  s.boundary_halo = rows_of(s.outer, {layout_.interior, owned, -1});
  s.halo_transposed = rows_of(s.outer_transposed, {0, layout_.halo, -1});
  // (Â[:, halo] stays: a recomputed slice's rows of it are copied when first multiplied, as
  // are a chunk's rows of Â[:, owned].)
  if (!backend_.host_memory()) {
    s.inner_transposed = s.outer_transposed = Csr{};
    if (layout_.chunk_count() == 1) s.inner = Csr{};
  }
  return s;
}

// out = Â[:, owned] x[owned] piece by piece while the halo rows travel, then
// out += Â[:, halo] x[halo] once they are in.
void BlockRows::aggregate_split(ConstMatrixView x, MatrixView out) {
  multiply_owned({0, layout_.owned, -1}, x, out);
  halo_->finish();
  split().halo->multiply(x.rows_range(layout_.owned, layout_.owned + layout_.halo), out, 1.0f);
}

// A slice of rows that begins and ends where pieces do (ConvStage recomputing with a halo),
// summed as aggregate_piece sums them: owned columns piece by piece, then the halo's for
// rows past the interior, once a forward exchange is in (a backward one may be in flight).
void BlockRows::aggregate_halo_slice(const Block& b, ConstMatrixView x, MatrixView out) {
  STRATA_CHECK(b.begin >= 0 && b.end <= layout_.owned && layout_.chunk_count() == 1,
               "slice of rows [", b.begin, ", ", b.end, ") of ", layout_.owned, " in ",
               layout_.chunk_count(), " chunks with a halo");
  multiply_owned(b, x, out);
  const LocalId from = std::max(b.begin, layout_.interior);
  if (from >= b.end) return;
  if (!halo_->backward_pending()) halo_->finish();
  std::unique_ptr<kernels::SparseMatrix>& m = slices_[b.begin];
  if (!m || m->rows() != b.end - from) m = rows_of(split().outer, {from, b.end, -1});
  m->multiply(x.rows_range(layout_.owned, layout_.owned + layout_.halo),
              out.rows_range(from - b.begin, b.size()), 1.0f);
}

void BlockRows::aggregate_piece(const Block& piece, ConstMatrixView x, MatrixView out) {
  multiply_owned(piece, x, out);
  if (piece.chunk == kInteriorPiece) return;
  halo_->finish();
  split().boundary_halo->multiply(x.rows_range(layout_.owned, layout_.owned + layout_.halo), out,
                                  1.0f);
}

// out (rows [rows.begin, rows.end)) = Â[rows, owned] x[owned], one piece of the split after
// the other, calling MPI between them; rows begin and end where pieces do.
void BlockRows::multiply_owned(const Block& rows, ConstMatrixView x, MatrixView out) {
  Split& s = split();
  const ConstMatrixView inner = x.rows_range(0, layout_.owned);
  const auto first = std::lower_bound(s.piece_starts.begin(), s.piece_starts.end(), rows.begin);
  STRATA_CHECK(first != s.piece_starts.end() && *first == rows.begin, "rows from ", rows.begin,
               " do not begin where a piece does");
  for (auto i = static_cast<std::size_t>(first - s.piece_starts.begin());
       i < s.owned.size() && s.piece_starts[i] < rows.end; ++i) {
    const LocalId begin = s.piece_starts[i], end = s.piece_starts[i + 1];
    s.owned[i]->multiply(inner, out.rows_range(begin - rows.begin, end - rows.begin));
    halo_->progress();
  }
}

// g[halo] += Â[:, halo]ᵀ grad first, so that those rows leave for their owners while
// g[owned] += Â[:, owned]ᵀ grad is computed; exchange_gradient adds what arrives.
void BlockRows::scatter_split(ConstMatrixView grad, MatrixView g) {
  Split& s = split();
  const LocalId owned = layout_.owned;
  s.halo_transposed->multiply(grad, g.rows_range(owned, owned + layout_.halo), 1.0f);
  halo_->start_backward(g, !overlap_);
  for (std::size_t i = 0; i < s.owned_transposed.size(); ++i) {
    s.owned_transposed[i]->multiply(grad, g.rows_range(s.piece_starts[i], s.piece_starts[i + 1]),
                                    1.0f);
    halo_->progress();
  }
}

}  // namespace strata
