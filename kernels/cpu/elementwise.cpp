// Elementwise kernels and column reductions over strided row-major views.
#include <algorithm>
#include <vector>

#include "dropout_keys.h"
#include "row_ops.h"
#include "strata/core/random.h"
#include "strata/kernels/kernels.h"

namespace strata::kernels {
namespace {

// Below this many entries a pass takes a few microseconds, less than waking a sleeping
// thread team (OMP_WAIT_POLICY=passive): GCNII's 64 x 64 weight mappings run on one thread.
constexpr std::int64_t kParallelEntries = 32768;

// Applies fn(row) to every row of a rows x cols pass, rows in parallel where it is large.
template <typename RowFn>
void for_rows(std::int64_t rows, std::int64_t cols, RowFn&& fn) {
#pragma omp parallel for schedule(static) if (rows * cols >= kParallelEntries)
  for (std::int64_t r = 0; r < rows; ++r) fn(r);
}

constexpr std::int64_t kPairsPerBatch = 32;

// One row's dropout, 64 columns at a time: first each pair's hash split into its two
// columns' bits (64-bit multiplies, which vectorize where AVX-512DQ has them), then the
// mask applied column by column; the same bits as column_bits (dropout_keys.h). Kept as two
// plain loops over arrays: interleaving the two columns of a pair (one loop over pairs)
// did not vectorize and ran 4x slower. src may be dst.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void dropout_row(
    const float* src, float* dst, std::int64_t cols, std::uint64_t row_key,
    const std::uint64_t* pair_keys, float keep_scale, std::uint32_t threshold) {
  std::uint32_t bits[2 * kPairsPerBatch];
  for (std::int64_t first = 0; first < cols; first += 2 * kPairsPerBatch) {
    const std::int64_t width = std::min(2 * kPairsPerBatch, cols - first);
    const std::uint64_t* keys = pair_keys + first / 2;
    for (std::int64_t j = 0; j < (width + 1) / 2; ++j) {
      const std::uint64_t h = splitmix64(row_key ^ keys[j]);
      bits[2 * j] = column_bits(h, 0);
      bits[2 * j + 1] = column_bits(h, 1);
    }
    for (std::int64_t c = first; c < first + width; ++c)
      dst[c] = keep_or_zero(src[c], keep_scale, bits[c - first], threshold);
  }
}

}  // namespace

std::vector<std::uint64_t> dropout_column_keys(std::int64_t cols) {
  std::vector<std::uint64_t> keys(static_cast<std::size_t>((cols + 1) / 2));
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = splitmix64(i);
  return keys;
}

void relu_forward(ConstMatrixView in, MatrixView out) {
  check_same_shape(in, out, "relu_forward");
  for_rows(in.rows, in.cols, [&](std::int64_t r) { rows::relu(in.row(r), out.row(r), in.cols); });
}

void relu_backward(ConstMatrixView out_or_in, ConstMatrixView grad_out, MatrixView grad_in) {
  check_same_shape(out_or_in, grad_out, "relu_backward");
  check_same_shape(grad_out, grad_in, "relu_backward");
  for_rows(grad_in.rows, grad_in.cols, [&](std::int64_t r) {
    rows::relu_backward(out_or_in.row(r), grad_out.row(r), grad_in.row(r), grad_in.cols);
  });
}

void add_bias_rows(MatrixView y, std::span<const float> bias) {
  STRATA_CHECK(static_cast<std::int64_t>(bias.size()) == y.cols, "add_bias_rows: bias has ",
               bias.size(), " entries for ", y.cols, " columns");
  for_rows(y.rows, y.cols, [&](std::int64_t r) {
    float* dst = y.row(r);
    for (std::int64_t c = 0; c < y.cols; ++c) dst[c] += bias[c];
  });
}

// Serial over rows so every column is summed in row order (deterministic); the inner
// loop over columns vectorizes.
void column_sums(ConstMatrixView x, std::span<float> out, bool accumulate) {
  STRATA_CHECK(static_cast<std::int64_t>(out.size()) == x.cols, "column_sums: out has ", out.size(),
               " entries for ", x.cols, " columns");
  if (!accumulate) std::fill(out.begin(), out.end(), 0.0f);
  for (std::int64_t r = 0; r < x.rows; ++r) {
    const float* src = x.row(r);
    for (std::int64_t c = 0; c < x.cols; ++c) out[c] += src[c];
  }
}

void axpy(float alpha, ConstMatrixView x, MatrixView y) {
  check_same_shape(x, y, "axpy");
  for_rows(y.rows, y.cols, [&](std::int64_t r) {
    const float* src = x.row(r);
    float* dst = y.row(r);
    for (std::int64_t c = 0; c < y.cols; ++c) dst[c] += alpha * src[c];
  });
}

void mix(float alpha, ConstMatrixView x, float beta, MatrixView y) {
  check_same_shape(x, y, "mix");
  for_rows(y.rows, y.cols,
           [&](std::int64_t r) { rows::mix(alpha, x.row(r), beta, y.row(r), y.cols); });
}

void axpy_scale(float alpha, MatrixView x, MatrixView y, float beta) {
  check_same_shape(x, y, "axpy_scale");
  for_rows(y.rows, y.cols,
           [&](std::int64_t r) { rows::axpy_scale(alpha, x.row(r), y.row(r), beta, y.cols); });
}

void scale(MatrixView x, float alpha) {
  for_rows(x.rows, x.cols, [&](std::int64_t r) {
    float* dst = x.row(r);
    for (std::int64_t c = 0; c < x.cols; ++c) dst[c] *= alpha;
  });
}

void copy(ConstMatrixView x, MatrixView y) {
  check_same_shape(x, y, "copy");
  for_rows(y.rows, y.cols,
           [&](std::int64_t r) { std::copy(x.row(r), x.row(r) + x.cols, y.row(r)); });
}

void zero(MatrixView x) {
  for_rows(x.rows, x.cols, [&](std::int64_t r) { std::fill(x.row(r), x.row(r) + x.cols, 0.0f); });
}

RowDropout::RowDropout(float p, std::uint64_t seed, std::int64_t epoch, std::int32_t layer,
                       std::int64_t cols)
    : p_(p),
      keep_scale_(p < 1.0f ? 1.0f / (1.0f - p) : 0.0f),
      threshold_(drop_threshold(p)),
      base_(hash_key(seed, static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(layer))),
      cols_(cols),
      column_keys_(p > 0.0f ? dropout_column_keys(cols) : std::vector<std::uint64_t>{}) {
  STRATA_CHECK(p >= 0.0f && p < 1.0f, "dropout: p = ", p);
}

void RowDropout::apply(const float* src, float* dst, GlobalId id) const {
  if (p_ == 0.0f) {
    if (src != dst) std::copy(src, src + cols_, dst);
    return;
  }
  dropout_row(src, dst, cols_, row_key(id), column_keys_.data(), keep_scale_, threshold_);
}

void dropout_copy(ConstMatrixView x, MatrixView y, std::span<const GlobalId> row_ids, float p,
                  std::uint64_t seed, std::int64_t epoch, std::int32_t layer) {
  check_same_shape(x, y, "dropout");
  STRATA_CHECK(static_cast<std::int64_t>(row_ids.size()) == x.rows, "dropout: ", row_ids.size(),
               " row ids for ", x.rows, " rows");
  if (p == 0.0f && x.data == y.data) return;
  const RowDropout drop(p, seed, epoch, layer, x.cols);
  for_rows(x.rows, x.cols, [&](std::int64_t r) { drop.apply(x.row(r), y.row(r), row_ids[r]); });
}

void dropout(MatrixView x, std::span<const GlobalId> row_ids, float p, std::uint64_t seed,
             std::int64_t epoch, std::int32_t layer) {
  dropout_copy(x, x, row_ids, p, seed, epoch, layer);
}

}  // namespace strata::kernels
