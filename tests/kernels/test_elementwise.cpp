// Elementwise kernels, dropout, loss and Adam against references.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>

#include "strata/core/random.h"
#include "strata/kernels/kernels.h"
#include "test_util.h"

namespace strata {
namespace {

TEST_CASE("relu, bias, column sums on strided views", "[kernels][elementwise]") {
  for (const std::int64_t n : {0, 1, 31, 33, 257, 1001}) {
    std::vector<float> xs, gs, outs;
    const MatrixView x = test::random_view(xs, n, 33, 3, 1);
    const MatrixView g = test::random_view(gs, n, 33, 1, 2);
    const MatrixView out = test::random_view(outs, n, 33, 2, 3);
    kernels::relu_forward(x, out);
    std::vector<float> sums(33);
    kernels::column_sums(x, sums);
    std::vector<double> expected(33, 0.0);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = 0; c < 33; ++c) {
        REQUIRE(out.at(r, c) == std::max(x.at(r, c), 0.0f));
        expected[c] += x.at(r, c);
      }
    for (std::int64_t c = 0; c < 33; ++c) REQUIRE(sums[c] == Approx(expected[c]).margin(1e-3));
    kernels::relu_backward(out, g, out);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = 0; c < 33; ++c)
        REQUIRE(out.at(r, c) == (x.at(r, c) > 0 ? g.at(r, c) : 0.0f));
    // A different bias per column, checked on every entry against a copy taken before;
    // the padding column between rows (stride 34) must stay untouched.
    std::vector<float> bias(33);
    for (std::size_t c = 0; c < bias.size(); ++c) bias[c] = 0.25f * static_cast<float>(c) - 1.0f;
    const std::vector<float> before = gs;
    kernels::add_bias_rows(g, bias);
    for (std::size_t i = 0; i < gs.size(); ++i) {
      const auto c = static_cast<std::int64_t>(i % 34);
      const bool in_view = static_cast<std::int64_t>(i / 34) < n && c < 33;
      REQUIRE(gs[i] == (in_view ? before[i] + bias[static_cast<std::size_t>(c)] : before[i]));
    }
  }
}

// The fused passes against the calls they replace, bit for bit, on strided views (the
// padding between rows stays untouched: its storage must equal the reference's).
TEST_CASE("mix, axpy_scale and dropout_copy equal the calls they fuse", "[kernels][elementwise]") {
  for (const std::int64_t n : {0, 1, 31, 257})
    for (const std::int64_t cols : {1, 33, 64, 130}) {
      INFO(n << " x " << cols);
      std::vector<float> xs, ys, xs2, ys2;
      const MatrixView x = test::random_view(xs, n, cols, 3, 1),
                       y = test::random_view(ys, n, cols, 2, 2);
      const MatrixView x2 = test::random_view(xs2, n, cols, 3, 1),
                       y2 = test::random_view(ys2, n, cols, 2, 2);
      kernels::mix(0.1f, x, 0.9f, y);
      kernels::scale(y2, 0.9f);
      kernels::axpy(0.1f, x2, y2);
      REQUIRE(ys == ys2);
      kernels::axpy_scale(0.3f, x, y, 0.7f);
      kernels::axpy(0.3f, x2, y2);
      kernels::scale(x2, 0.7f);
      REQUIRE(xs == xs2);
      REQUIRE(ys == ys2);
      std::vector<GlobalId> ids(static_cast<std::size_t>(n));
      for (std::int64_t r = 0; r < n; ++r) ids[static_cast<std::size_t>(r)] = 7 * r + 2;
      for (const float p : {0.0f, 0.5f}) {
        kernels::dropout_copy(x, y, ids, p, 5, 1, 3);
        kernels::copy(x2, y2);
        kernels::dropout(y2, ids, p, 5, 1, 3);
        REQUIRE(ys == ys2);
        REQUIRE(xs == xs2);  // the source is left as it was
      }
    }
}

TEST_CASE("dropout is keyed by global id and reproducible", "[kernels][dropout]") {
  Matrix full(10, 8, 1.0f);
  std::vector<GlobalId> ids(10);
  for (int i = 0; i < 10; ++i) ids[i] = 100 + i;
  kernels::dropout(full.view(), ids, 0.5f, 9, 3, 1);
  Matrix part(3, 8, 1.0f);  // rows 4..6 of the same graph, as another rank sees them
  kernels::dropout(part.view(), std::span<const GlobalId>(ids).subspan(4, 3), 0.5f, 9, 3, 1);
  int kept = 0;
  for (int r = 0; r < 10; ++r)
    for (int c = 0; c < 8; ++c) {
      REQUIRE((full.at(r, c) == 0.0f || full.at(r, c) == 2.0f));
      kept += full.at(r, c) != 0.0f;
      if (r >= 4 && r < 7) REQUIRE(part.at(r - 4, c) == full.at(r, c));
    }
  CHECK(kept > 20);
  CHECK(kept < 60);
}

// The documented mask, drawn the slow way: dropped when the column's 24 hash bits, as a
// fraction of 2^24, fall below p.
float reference_dropout(float x, float p, std::uint64_t row_key, std::int64_t c) {
  const std::uint64_t h = splitmix64(row_key ^ splitmix64(static_cast<std::uint64_t>(c / 2)));
  const std::uint64_t bits = (c & 1) ? (h >> 16) & 0xFFFFFFull : h >> 40;
  const bool dropped = static_cast<float>(bits) * (1.0f / 16777216.0f) < p;
  return dropped ? 0.0f : x * (1.0f / (1.0f - p));
}

TEST_CASE("dense and sparse dropout match the documented mask bit for bit", "[kernels][dropout]") {
  for (const float p : {0.1f, 0.5f, 1.0f / 3.0f, 0.9f, 0.999f})
    for (const std::int64_t cols : {1, 7, 33, 64, 65, 130}) {
      std::vector<float> xs;
      const MatrixView x = test::random_view(xs, 101, cols, 3, 5);
      x.at(7, 0) = std::nanf("");  // a dropped NaN becomes 0, a kept one stays NaN
      Matrix expected(x.rows, cols);
      std::vector<GlobalId> ids(static_cast<std::size_t>(x.rows));
      const std::uint64_t base = hash_key(11, 4, 2);
      for (std::int64_t r = 0; r < x.rows; ++r) {
        ids[r] = 1000 + 3 * r;
        for (std::int64_t c = 0; c < cols; ++c)
          expected.at(r, c) = reference_dropout(x.at(r, c), p, hash_key(base, ids[r]), c);
      }
      const Csr sparse = test::random_csr(101, static_cast<LocalId>(cols), 0.5f, 6);
      std::vector<float> values = sparse.values;
      kernels::dropout(x, ids, p, 11, 4, 2);
      kernels::dropout_csr(sparse.view(), values, ids, p, 11, 4, 2);
      for (std::int64_t r = 0; r < x.rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) {
          const float want = expected.at(r, c);
          REQUIRE(std::bit_cast<std::uint32_t>(x.at(r, c)) == std::bit_cast<std::uint32_t>(want));
        }
      for (LocalId r = 0; r < sparse.rows; ++r)
        for (EdgeOffset k = sparse.offsets[r]; k < sparse.offsets[r + 1]; ++k)
          REQUIRE(std::bit_cast<std::uint32_t>(values[k]) ==
                  std::bit_cast<std::uint32_t>(reference_dropout(
                      sparse.values[k], p, hash_key(base, ids[r]), sparse.indices[k])));
    }
}

TEST_CASE("masked softmax nll and its gradient", "[kernels][loss]") {
  Matrix logits(3, 4);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) logits.at(r, c) = 0.3f * static_cast<float>(r * 4 + c) - 1.0f;
  const std::vector<std::int32_t> labels{2, 0, 3};
  const std::vector<std::uint8_t> mask{1, 0, 1};
  Matrix grad(3, 4, 7.0f);
  const double loss =
      kernels::masked_log_softmax_nll(logits.view(), labels, mask, 4.0, grad.view());
  double expected = 0.0;
  for (int r : {0, 2}) {
    double denom = 0.0;
    for (int c = 0; c < 4; ++c) denom += std::exp(double{logits.at(r, c)});
    expected += std::log(denom) - logits.at(r, labels[r]);
  }
  CHECK(loss == Approx(expected / 4.0));
  for (int c = 0; c < 4; ++c) CHECK(grad.at(1, c) == 0.0f);
  const double eps = 1e-2;  // central differences on the loss
  for (int r : {0, 2})
    for (int c = 0; c < 4; ++c) {
      Matrix scratch(3, 4);
      const float saved = logits.at(r, c);
      logits.at(r, c) = saved + static_cast<float>(eps);
      const double up =
          kernels::masked_log_softmax_nll(logits.view(), labels, mask, 4.0, scratch.view());
      logits.at(r, c) = saved - static_cast<float>(eps);
      const double down =
          kernels::masked_log_softmax_nll(logits.view(), labels, mask, 4.0, scratch.view());
      logits.at(r, c) = saved;
      CHECK(grad.at(r, c) == Approx((up - down) / (2 * eps)).epsilon(1e-2).margin(1e-4));
    }
  CHECK(kernels::argmax_correct(logits.view(), labels, mask) == 1);  // row 2: argmax 3
}

TEST_CASE("adam matches a hand-computed step", "[kernels][adam]") {
  std::vector<float> param{1.0f, -2.0f}, grad{0.5f, 0.1f}, m(2, 0.0f), v(2, 0.0f);
  kernels::AdamConfig config;
  config.lr = 0.1f;
  config.weight_decay = 0.1f;
  kernels::adam_step(param, grad, m, v, config, 1);
  // Step 1: g = grad + wd·p, m̂ = g, v̂ = g², update = lr · g / (|g| + eps) ≈ lr · sign(g).
  CHECK(param[0] == Approx(0.9f));
  CHECK(param[1] == Approx(-1.9f));  // g = 0.1 - 0.2 = -0.1
  CHECK(m[0] == Approx(0.1f * 0.6f));
  CHECK(v[0] == Approx(0.001 * 0.36).epsilon(1e-4));
  kernels::adam_step(param, grad, m, v, config, 2);
  const double g0 = 0.5 + 0.1 * 0.9;
  const double m0 = 0.9 * 0.06 + 0.1 * g0, v0 = 0.999 * 0.00036 + 0.001 * g0 * g0;
  const double expected = 0.9 - 0.1 * (m0 / (1 - 0.81)) / (std::sqrt(v0 / (1 - 0.998001)) + 1e-8);
  CHECK(param[0] == Approx(expected));
}

}  // namespace
}  // namespace strata
