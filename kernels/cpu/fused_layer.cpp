// A layer's dense tail in blocks of rows that stay in this core's cache: each thread takes
// a block, runs every step on it (the elementwise passes and a single-threaded GEMM, since
// OpenBLAS runs on its caller's thread inside a parallel region) and moves on. The
// unfused calls stream each N x 64 matrix through the last-level cache once per step.
// Elementwise steps round as kernels.h's calls do (the build's baseline has no FMA). The
// GEMM's rows came out the same from one 512-row call as from one whole-matrix call with
// Debian's OpenBLAS 0.3.21 where the product is at least 16 wide (narrower ones took its
// small-matrix kernel, and run the unfused calls here); the kernel test holds the fused
// passes to the unfused calls within rounding, not bit for bit, in case a BLAS differs.
#include <algorithm>

#include "dropout_keys.h"
#include "grouped_sums.h"
#include "row_ops.h"
#include "strata/kernels/kernels.h"

namespace strata::kernels {
namespace {

constexpr std::int64_t kBlockRows = 512;  // 3 x 128 KB at width 64: within a 1-2 MB L2
constexpr std::int64_t kMinWidth = 16;

bool blocked(ConstMatrixView w) {
  return w.rows >= kMinWidth && w.cols >= kMinWidth;
}

// Runs step(begin, end) over blocks of rows, blocks in parallel.
template <typename Step>
void for_blocks(std::int64_t rows, Step&& step) {
  const std::int64_t blocks = (rows + kBlockRows - 1) / kBlockRows;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < blocks; ++i)
    step(i * kBlockRows, std::min(rows, (i + 1) * kBlockRows));
}

}  // namespace

void mix_gemm_relu(float alpha, ConstMatrixView h0, float beta, MatrixView s, ConstMatrixView w,
                   MatrixView y, const DropInto& next) {
  check_same_shape(h0, s, "mix_gemm_relu");
  STRATA_CHECK(w.rows == s.cols && y.rows == s.rows && y.cols == w.cols, "mix_gemm_relu: s ",
               s.rows, "x", s.cols, ", w ", w.rows, "x", w.cols, ", y ", y.rows, "x", y.cols);
  if (!blocked(w)) {
    mix(alpha, h0, beta, s);
    gemm(false, false, 1.0f, s, w, 0.0f, y);
    relu_forward(y, y);
    if (next.to.data != nullptr)
      dropout_copy(y, next.to, {next.row_ids, static_cast<std::size_t>(y.rows)}, next.p, next.seed,
                   next.epoch, next.layer);
    return;
  }
  const bool dropping = next.to.data != nullptr;
  if (dropping) check_same_shape(y, next.to, "mix_gemm_relu's drop");
  const RowDropout drop(next.p, next.seed, next.epoch, next.layer, y.cols);
  for_blocks(s.rows, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) rows::mix(alpha, h0.row(r), beta, s.row(r), s.cols);
    const MatrixView yb = y.rows_range(begin, end);
    gemm(false, false, 1.0f, s.rows_range(begin, end), w, 0.0f, yb);
    for (std::int64_t r = begin; r < end; ++r) {
      rows::relu(y.row(r), y.row(r), y.cols);
      if (dropping) drop.apply(y.row(r), next.to.row(r), next.row_ids[r]);
    }
  });
}

namespace {

// The block step of relu_gemm_split on rows [begin, end).
struct SplitStep {
  ConstMatrixView y;
  MatrixView grad_y;
  ConstMatrixView w;
  MatrixView grad_z;
  float alpha;
  MatrixView grad_h0;
  float beta;
  const DropInto& drop;
  RowDropout dropper;

  void operator()(std::int64_t begin, std::int64_t end) const {
    for (std::int64_t r = begin; r < end; ++r) {
      if (drop.to.data != nullptr) dropper.apply(grad_y.row(r), grad_y.row(r), drop.row_ids[r]);
      rows::relu_backward(y.row(r), grad_y.row(r), grad_y.row(r), y.cols);
    }
    gemm(false, true, 1.0f, grad_y.rows_range(begin, end), w, 0.0f, grad_z.rows_range(begin, end));
    for (std::int64_t r = begin; r < end; ++r)
      rows::axpy_scale(alpha, grad_z.row(r), grad_h0.row(r), beta, grad_z.cols);
  }
};

void split_unfused(ConstMatrixView y, MatrixView grad_y, ConstMatrixView w, MatrixView grad_z,
                   float alpha, MatrixView grad_h0, float beta, const DropInto& drop) {
  if (drop.to.data != nullptr)
    dropout(grad_y, {drop.row_ids, static_cast<std::size_t>(grad_y.rows)}, drop.p, drop.seed,
            drop.epoch, drop.layer);
  relu_backward(y, grad_y, grad_y);
  gemm(false, true, 1.0f, grad_y, w, 0.0f, grad_z);
  axpy_scale(alpha, grad_z, grad_h0, beta);
}

void check_split(ConstMatrixView y, ConstMatrixView grad_y, ConstMatrixView w,
                 ConstMatrixView grad_z, ConstMatrixView grad_h0, const DropInto& drop,
                 const WeightGradientInto& weight) {
  STRATA_CHECK(drop.to.data == nullptr || drop.to.data == grad_y.data,
               "relu_gemm_split: the drop must be grad_y's own");
  check_same_shape(y, grad_y, "relu_gemm_split");
  check_same_shape(grad_z, grad_h0, "relu_gemm_split");
  STRATA_CHECK(w.cols == y.cols && grad_z.rows == y.rows && grad_z.cols == w.rows,
               "relu_gemm_split: y ", y.rows, "x", y.cols, ", w ", w.rows, "x", w.cols, ", grad_z ",
               grad_z.rows, "x", grad_z.cols);
  STRATA_CHECK(weight.sums.empty() ||
                   (weight.a.rows == y.rows &&
                    static_cast<std::int64_t>(weight.sums.size()) == weight.a.cols * y.cols),
               "relu_gemm_split: weight gradient of ", weight.a.rows, "x", weight.a.cols, " by ",
               y.rows, "x", y.cols, " into ", weight.sums.size(), " sums");
}

}  // namespace

void relu_gemm_split(ConstMatrixView y, MatrixView grad_y, ConstMatrixView w, MatrixView grad_z,
                     float alpha, MatrixView grad_h0, float beta, const DropInto& drop,
                     const WeightGradientInto& weight) {
  check_split(y, grad_y, w, grad_z, grad_h0, drop, weight);
  const bool dropping = drop.to.data != nullptr && drop.p > 0.0f;
  const bool summing = !weight.sums.empty();
  const DropInto no_drop{};
  const DropInto& used = dropping ? drop : no_drop;
  if (!blocked(w)) {
    split_unfused(y, grad_y, w, grad_z, alpha, grad_h0, beta, used);
    if (summing) gemm_tn_accumulate(weight.a, grad_y, weight.sums, weight.alpha);
    return;
  }
  const RowDropout dropper(dropping ? drop.p : 0.0f, drop.seed, drop.epoch, drop.layer, y.cols);
  const SplitStep step{y, grad_y, w, grad_z, alpha, grad_h0, beta, used, dropper};
  if (!summing) {
    for_blocks(y.rows, step);
    return;
  }
  // A weight-gradient group's rows, a cache-sized block at a time, then their product while
  // they are near the core.
  accumulate_by_groups(y.rows, weight.sums,
                       [&](std::int64_t begin, std::int64_t end, double* partial) {
                         for (std::int64_t b = begin; b < end; b += kBlockRows)
                           step(b, std::min(end, b + kBlockRows));
                         group_product(weight.a, grad_y, begin, end, weight.alpha, partial);
                       });
}

}  // namespace strata::kernels
