// Elementwise kernels and column reductions over strided row-major views.
#include <algorithm>
#include <bit>
#include <vector>

#include "dropout_keys.h"
#include "strata/core/random.h"
#include "strata/kernels/kernels.h"

namespace strata::kernels {
namespace {

void check_same_shape(ConstMatrixView a, ConstMatrixView b, const char* what) {
  STRATA_CHECK(a.rows == b.rows && a.cols == b.cols, what, ": shapes ", a.rows, "x", a.cols, " vs ",
               b.rows, "x", b.cols);
}

// Applies f(row pointer of each view...) to every row, rows in parallel.
template <typename RowFn>
void for_rows(std::int64_t rows, RowFn&& fn) {
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) fn(r);
}

constexpr std::int64_t kPairsPerBatch = 32;

// One row's dropout: the pairs' hashes a batch at a time (64-bit multiplies, which
// vectorize with AVX-512), then the mask applied from them; the same bits as pair_hash.
__attribute__((target_clones("avx512f", "avx2", "default"))) void dropout_row(
    float* dst, std::int64_t cols, std::uint64_t row_key, const std::uint64_t* pair_keys,
    float keep_scale, std::uint32_t threshold) {
  std::uint64_t hashes[kPairsPerBatch];
  for (std::int64_t first = 0; first < cols; first += 2 * kPairsPerBatch) {
    const std::int64_t pairs = std::min(kPairsPerBatch, (cols - first + 1) / 2);
    const std::uint64_t* keys = pair_keys + first / 2;
    for (std::int64_t j = 0; j < pairs; ++j) hashes[j] = splitmix64(row_key ^ keys[j]);
    for (std::int64_t j = 0; j < pairs; ++j) {
      const std::int64_t c = first + 2 * j;
      dst[c] = keep_or_zero(dst[c], keep_scale, column_bits(hashes[j], 0), threshold);
      if (c + 1 < cols)
        dst[c + 1] = keep_or_zero(dst[c + 1], keep_scale, column_bits(hashes[j], 1), threshold);
    }
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
  for_rows(in.rows, [&](std::int64_t r) {
    const float* src = in.row(r);
    float* dst = out.row(r);
    for (std::int64_t c = 0; c < in.cols; ++c) dst[c] = src[c] > 0.0f ? src[c] : 0.0f;
  });
}

void relu_backward(ConstMatrixView out_or_in, ConstMatrixView grad_out, MatrixView grad_in) {
  check_same_shape(out_or_in, grad_out, "relu_backward");
  check_same_shape(grad_out, grad_in, "relu_backward");
  for_rows(grad_in.rows, [&](std::int64_t r) {
    const float* act = out_or_in.row(r);
    const float* g = grad_out.row(r);
    float* dst = grad_in.row(r);
    // A mask, not a branch: which activations are positive is data, not predictable.
    for (std::int64_t c = 0; c < grad_in.cols; ++c)
      dst[c] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(g[c]) &
                                    (0u - static_cast<std::uint32_t>(act[c] > 0.0f)));
  });
}

void add_bias_rows(MatrixView y, std::span<const float> bias) {
  STRATA_CHECK(static_cast<std::int64_t>(bias.size()) == y.cols, "add_bias_rows: bias has ",
               bias.size(), " entries for ", y.cols, " columns");
  for_rows(y.rows, [&](std::int64_t r) {
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
  for_rows(y.rows, [&](std::int64_t r) {
    const float* src = x.row(r);
    float* dst = y.row(r);
    for (std::int64_t c = 0; c < y.cols; ++c) dst[c] += alpha * src[c];
  });
}

void scale(MatrixView x, float alpha) {
  for_rows(x.rows, [&](std::int64_t r) {
    float* dst = x.row(r);
    for (std::int64_t c = 0; c < x.cols; ++c) dst[c] *= alpha;
  });
}

void copy(ConstMatrixView x, MatrixView y) {
  check_same_shape(x, y, "copy");
  for_rows(y.rows, [&](std::int64_t r) { std::copy(x.row(r), x.row(r) + x.cols, y.row(r)); });
}

void zero(MatrixView x) {
  for_rows(x.rows, [&](std::int64_t r) { std::fill(x.row(r), x.row(r) + x.cols, 0.0f); });
}

void dropout(MatrixView x, std::span<const GlobalId> row_ids, float p, std::uint64_t seed,
             std::int64_t epoch, std::int32_t layer) {
  STRATA_CHECK(static_cast<std::int64_t>(row_ids.size()) == x.rows, "dropout: ", row_ids.size(),
               " row ids for ", x.rows, " rows");
  STRATA_CHECK(p >= 0.0f && p < 1.0f, "dropout: p = ", p);
  if (p == 0.0f) return;
  const float keep_scale = 1.0f / (1.0f - p);
  const std::uint32_t threshold = drop_threshold(p);
  const std::uint64_t base =
      hash_key(seed, static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(layer));
  const std::vector<std::uint64_t> column_keys = dropout_column_keys(x.cols);
  for_rows(x.rows, [&](std::int64_t r) {
    const std::uint64_t row_key = hash_key(base, static_cast<std::uint64_t>(row_ids[r]));
    dropout_row(x.row(r), x.cols, row_key, column_keys.data(), keep_scale, threshold);
  });
}

}  // namespace strata::kernels
