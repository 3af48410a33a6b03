// Weight-gradient sums in double precision. A sum over rows split across ranks is added
// in a different order than one process adds it; in double the two differ far below
// float's resolution, so once cast back to float the gradients (and hence the training
// run) almost always agree bit for bit whatever the partition.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "strata/kernels/kernels.h"

namespace strata::kernels {
namespace {

// Rows per block: few enough that both converted slices stay near the core (16K doubles:
// 128 rows of two 64-wide matrices, 1.5x faster than 2048 rows on the 16-layer GCNII), and
// enough that each dgemm's pass over the sums (a_cols x b_cols doubles, read and written
// once a block) stays small beside its arithmetic (K >= 4 a_cols b_cols / (a_cols + b_cols)).
std::int64_t block_rows(std::int64_t a_cols, std::int64_t b_cols) {
  const std::int64_t width = a_cols + b_cols;
  return std::clamp(std::max(16384 / width, 4 * a_cols * b_cols / width), std::int64_t{32},
                    std::int64_t{2048});
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
    const double v = a.values ? a.values[e] : 1.0;
    const float* src = x.row(a.indices[e]);
    for (std::int64_t c = 0; c < w; ++c) out[c] += v * static_cast<double>(src[c]);
  }
}

// c += alpha aᵀ b over rows [begin, end), a block of rows at a time converted to double.
void gemm_tn_rows(ConstMatrixView a, ConstMatrixView b, std::int64_t begin, std::int64_t end,
                  double* c, double alpha) {
  std::vector<double> da, db;
  const std::int64_t block = block_rows(a.cols, b.cols);
  for (; begin < end; begin += block) {
    const std::int64_t stop = std::min(end, begin + block);
    to_double(a, begin, stop, da);
    to_double(b, begin, stop, db);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<blasint>(a.cols),
                static_cast<blasint>(b.cols), static_cast<blasint>(stop - begin), alpha, da.data(),
                static_cast<blasint>(a.cols), db.data(), static_cast<blasint>(b.cols), 1.0, c,
                static_cast<blasint>(b.cols));
  }
}

}  // namespace

// Each thread sums a contiguous range of blocks into its own partial (a dgemm inside the
// parallel region runs on its caller's thread), the partials are added in thread order:
// the same thread count gives the same bits. One block's dgemm of 64 x 64 outputs is too
// small for OpenBLAS to split well, and the conversions ran on one thread.
void gemm_tn_accumulate(ConstMatrixView a, ConstMatrixView b, std::span<double> c, double alpha) {
  STRATA_CHECK(a.rows == b.rows, "gemm_tn_accumulate: ", a.rows, " vs ", b.rows, " rows");
  STRATA_CHECK(static_cast<std::int64_t>(c.size()) == a.cols * b.cols,
               "gemm_tn_accumulate: out has ", c.size(), " entries for ", a.cols, "x", b.cols);
  if (a.cols == 0 || b.cols == 0) return;
  const std::int64_t block = block_rows(a.cols, b.cols);
  const std::int64_t blocks = (a.rows + block - 1) / block;
  const int threads = static_cast<int>(std::min<std::int64_t>(omp_get_max_threads(), blocks));
  if (threads <= 1) return gemm_tn_rows(a, b, 0, a.rows, c.data(), alpha);
  std::vector<std::vector<double>> partial(static_cast<std::size_t>(threads));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    std::vector<double>& mine = partial[static_cast<std::size_t>(t)];
    mine.assign(c.size(), 0.0);
    gemm_tn_rows(a, b, std::min(a.rows, blocks * t / threads * block),
                 std::min(a.rows, blocks * (t + 1) / threads * block), mine.data(), alpha);
  }
  for (const std::vector<double>& p : partial)
    for (std::size_t i = 0; i < c.size(); ++i) c[i] += p[i];
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
