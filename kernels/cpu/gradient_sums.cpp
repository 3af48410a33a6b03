// Weight-gradient sums in double precision. A sum over rows split across ranks is added
// in a different order than one process adds it; in double the two differ far below
// float's resolution, so once cast back to float the gradients (and hence the training
// run) almost always agree bit for bit whatever the partition.
#include <cblas.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "grouped_sums.h"
#include "strata/kernels/kernels.h"

namespace strata::kernels {
namespace {

// Rows per block: few enough that both converted slices stay near the core (16K doubles:
// 128 rows of two 64-wide matrices, 1.5x faster than 2048 rows on the 16-layer GCNII), and
// enough that each dgemm's pass over the sums stays small beside its arithmetic
// (K >= 4 a_cols b_cols / (a_cols + b_cols)). A power of two that divides kGroupRows.
std::int64_t block_rows(std::int64_t a_cols, std::int64_t b_cols) {
  const std::int64_t width = a_cols + b_cols;
  const std::int64_t wanted = std::max(16384 / width, 4 * a_cols * b_cols / width);
  return static_cast<std::int64_t>(
      std::bit_floor(static_cast<std::uint64_t>(std::clamp<std::int64_t>(wanted, 32, kGroupRows))));
}

void to_double(ConstMatrixView m, std::int64_t begin, std::int64_t end, std::vector<double>& out) {
  out.resize(static_cast<std::size_t>((end - begin) * m.cols));
  double* dst = out.data();
  for (std::int64_t r = begin; r < end; ++r) dst = std::copy(m.row(r), m.row(r) + m.cols, dst);
}

constexpr EdgeOffset kPrefetchDistance = 8;  // entries ahead

// y_r += sum over row r's entries of v x_row, in double. A float times a float is exact in
// double, so the clones, fused multiply-adds or not, give the same sums bit for bit; the
// wider ones vectorize the conversion and the adds (the build's baseline is SSE2).
__attribute__((target_clones("avx512f", "avx2", "default"))) void accumulate_row(CsrView a,
                                                                                 LocalId r,
                                                                                 ConstMatrixView x,
                                                                                 double* out) {
  const std::int64_t w = x.cols;
  const EdgeOffset end = a.offsets[r + 1];
  for (EdgeOffset e = a.offsets[r]; e < end; ++e) {
    if (e + kPrefetchDistance < end) {  // the gathered rows, not the adds, bound this loop
      const char* ahead = reinterpret_cast<const char*>(x.row(a.indices[e + kPrefetchDistance]));
      for (std::int64_t b = 0; b < w * 4; b += 64) __builtin_prefetch(ahead + b);
    }
    const double v = a.value(r, e);
    const float* src = x.row(a.indices[e]);
    for (std::int64_t c = 0; c < w; ++c) out[c] += v * static_cast<double>(src[c]);
  }
}

}  // namespace

// A block at a time converted to double.
void group_product(ConstMatrixView a, ConstMatrixView b, std::int64_t begin, std::int64_t end,
                   double alpha, double* out) {
  std::vector<double> da, db;
  const std::int64_t block = block_rows(a.cols, b.cols);
  for (; begin < end; begin += block) {
    const std::int64_t stop = std::min(end, begin + block);
    to_double(a, begin, stop, da);
    to_double(b, begin, stop, db);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<blasint>(a.cols),
                static_cast<blasint>(b.cols), static_cast<blasint>(stop - begin), alpha, da.data(),
                static_cast<blasint>(a.cols), db.data(), static_cast<blasint>(b.cols), 1.0, out,
                static_cast<blasint>(b.cols));
  }
}

// Groups of kGroupRows rows are summed in parallel (accumulate_by_groups; a dgemm inside
// the parallel region runs on its caller's thread): the same bits whatever the thread
// count, and the same when the rows come in calls of whole groups (a recomputed layer's
// slices). One dgemm of 64 x 64 outputs is too small for OpenBLAS to split well.
void gemm_tn_accumulate(ConstMatrixView a, ConstMatrixView b, std::span<double> c, double alpha) {
  STRATA_CHECK(a.rows == b.rows, "gemm_tn_accumulate: ", a.rows, " vs ", b.rows, " rows");
  STRATA_CHECK(static_cast<std::int64_t>(c.size()) == a.cols * b.cols,
               "gemm_tn_accumulate: out has ", c.size(), " entries for ", a.cols, "x", b.cols);
  if (a.cols == 0 || b.cols == 0 || a.rows == 0) return;
  accumulate_by_groups(a.rows, c, [&](std::int64_t begin, std::int64_t end, double* partial) {
    group_product(a, b, begin, end, alpha, partial);
  });
}

void column_sums_accumulate(ConstMatrixView x, std::span<double> out) {
  STRATA_CHECK(static_cast<std::int64_t>(out.size()) == x.cols, "column_sums_accumulate: out has ",
               out.size(), " entries for ", x.cols, " columns");
  for (std::int64_t r = 0; r < x.rows; ++r) {
    const float* src = x.row(r);
    for (std::int64_t c = 0; c < x.cols; ++c) out[c] += src[c];
  }
}

void spmm_accumulate(CsrView a, ConstMatrixView x, std::span<double> y) {
  STRATA_CHECK(x.rows == a.cols, "spmm_accumulate: x has ", x.rows, " rows, a has ", a.cols);
  STRATA_CHECK(static_cast<std::int64_t>(y.size()) == a.rows * x.cols, "spmm_accumulate: y has ",
               y.size(), " entries for ", a.rows, "x", x.cols);
#pragma omp parallel for schedule(dynamic, 16)
  for (LocalId r = 0; r < a.rows; ++r) accumulate_row(a, r, x, y.data() + r * x.cols);
}

void cast_to_float(std::span<const double> in, std::span<float> out) {
  STRATA_CHECK(in.size() == out.size(), "cast_to_float: ", in.size(), " vs ", out.size());
  std::transform(in.begin(), in.end(), out.begin(), [](double v) { return static_cast<float>(v); });
}

}  // namespace strata::kernels
