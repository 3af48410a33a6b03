// The attention kernels (kernels/attention.h) over BlockEntries against a naive reference
// in double at awkward sizes (3 heads of width 5, strided rows, empty rows, a block that
// starts mid-graph), with dropout keyed by global ids; their backward against central
// differences of the reference.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "../kernels/test_util.h"
#include "strata/kernels/attention_keys.h"
#include "strata/kernels/backend.h"
#include "strata/layers/block_entries.h"

namespace strata {
namespace {

constexpr int kHeads = 3, kWidth = 5;
constexpr float kSlope = 0.2f;

struct Inputs {
  Csr a = test::random_csr(23, 31, 0.15f, 7);
  std::vector<GlobalId> ids;  // global ids of the columns; rows are the first 23 columns
  std::vector<double> s_dst, s_src, h, r;  // rows x K, cols x K, cols x K·F, rows x K·F
  kernels::AttentionDropout dropout{0.4f, 5, 3, 1};
  Inputs() {
    Rng rng(11);
    for (LocalId c = 0; c < a.cols; ++c) ids.push_back(1000 + 7 * c);
    const auto fill = [&](std::vector<double>& v, std::int64_t n) {
      for (std::int64_t i = 0; i < n; ++i) v.push_back(rng.uniform() * 2.0 - 1.0);
    };
    fill(s_dst, std::int64_t{a.rows} * kHeads);
    fill(s_src, std::int64_t{a.cols} * kHeads);
    fill(h, std::int64_t{a.cols} * kHeads * kWidth);
    fill(r, std::int64_t{a.rows} * kHeads * kWidth);
  }
  double keep(LocalId row, LocalId col, int k) const {
    if (dropout.p == 0.0f) return 1.0;
    const std::uint64_t base =
        kernels::attention_base_key(dropout.seed, dropout.epoch, dropout.layer);
    return kernels::attention_kept(base, ids[row], ids[col], k,
                                   static_cast<std::uint32_t>(std::ceil(dropout.p * 16777216.0)))
               ? 1.0 / (1.0 - dropout.p)
               : 0.0;
  }
};

// Rows [begin, end): out = Σ_e drop(softmax(LeakyReLU(s_dst + s_src))) h, in double;
// alpha by entry number within the block.
std::vector<double> naive(const Inputs& in, LocalId begin, LocalId end,
                          std::vector<double>* alpha) {
  const Csr& a = in.a;
  std::vector<double> out(static_cast<std::size_t>((end - begin) * kHeads * kWidth), 0.0);
  for (LocalId r = begin; r < end; ++r)
    for (int k = 0; k < kHeads; ++k) {
      std::vector<double> e;
      double top = -1e300, sum = 0;
      for (EdgeOffset i = a.offsets[r]; i < a.offsets[r + 1]; ++i) {
        const double z = in.s_dst[r * kHeads + k] + in.s_src[a.indices[i] * kHeads + k];
        e.push_back(z > 0 ? z : kSlope * z);
        top = std::max(top, e.back());
      }
      for (double& v : e) sum += (v = std::exp(v - top));
      for (EdgeOffset i = a.offsets[r]; i < a.offsets[r + 1]; ++i) {
        const LocalId c = a.indices[i];
        const double w = e[i - a.offsets[r]] / sum;
        if (alpha) (*alpha)[(i - a.offsets[begin]) * kHeads + k] = w;
        for (int f = k * kWidth; f < (k + 1) * kWidth; ++f)
          out[(r - begin) * kHeads * kWidth + f] +=
              w * in.keep(r, c, k) * in.h[c * kHeads * kWidth + f];
      }
    }
  return out;
}

std::vector<float> floats(const std::vector<double>& v) {
  return {v.begin(), v.end()};
}

TEST_CASE("attention kernels equal the naive reference over a block's entries",
          "[kernels][attention]") {
  Inputs in;
  const auto cpu = kernels::make_cpu_backend();
  for (const Block b : {Block{0, 23, -1}, Block{5, 19, 1}}) {
    INFO("rows " << b.begin << " to " << b.end);
    const BlockEntries entries(*cpu, in.a, b, in.ids.data() + b.begin, in.ids.data());
    const kernels::EdgeBlock& g = entries.edges();
    REQUIRE(g.first_entry == in.a.offsets[b.begin]);
    REQUIRE(g.entries == in.a.offsets[b.end] - in.a.offsets[b.begin]);
    std::vector<double> expected_alpha(static_cast<std::size_t>(g.entries * kHeads));
    const std::vector<double> expected = naive(in, b.begin, b.end, &expected_alpha);
    // h with two columns of padding (the scores' place in P), s_src likewise strided.
    std::vector<float> p(static_cast<std::size_t>(in.a.cols) * (kHeads * kWidth + kHeads));
    const MatrixView h{p.data(), in.a.cols, kHeads * kWidth, kHeads * kWidth + kHeads};
    const MatrixView s_src{p.data() + kHeads * kWidth, in.a.cols, kHeads, kHeads * kWidth + kHeads};
    for (LocalId c = 0; c < in.a.cols; ++c) {
      for (int f = 0; f < kHeads * kWidth; ++f)
        h.at(c, f) = static_cast<float>(in.h[c * kHeads * kWidth + f]);
      for (int k = 0; k < kHeads; ++k)
        s_src.at(c, k) = static_cast<float>(in.s_src[c * kHeads + k]);
    }
    std::vector<float> s_dst = floats(in.s_dst);
    const ConstMatrixView dst{s_dst.data() + b.begin * kHeads, b.size(), kHeads, kHeads};
    std::vector<float> alpha(static_cast<std::size_t>(g.entries * kHeads));
    cpu->attention_softmax(g, kHeads, dst, s_src, kSlope, alpha.data());
    for (std::size_t i = 0; i < alpha.size(); ++i)
      CHECK(alpha[i] == Approx(expected_alpha[i]).margin(1e-6));
    Matrix out(b.size(), kHeads * kWidth);
    cpu->attention_aggregate(g, kHeads, alpha.data(), in.dropout, h, out.view());
    for (std::int64_t i = 0; i < out.size(); ++i)
      CHECK(out.storage()[i] == Approx(expected[i]).margin(1e-5));
  }
}

// Σ out ⊙ r over rows [begin, end) of the reference.
double objective(const Inputs& in, LocalId begin, LocalId end) {
  const std::vector<double> out = naive(in, begin, end, nullptr);
  double sum = 0;
  for (std::size_t i = 0; i < out.size(); ++i) sum += out[i] * in.r[begin * kHeads * kWidth + i];
  return sum;
}

double central_difference(Inputs& in, std::vector<double>& v, std::size_t i, const Block& b) {
  const double saved = v[i], step = 1e-5;
  v[i] = saved + step;
  const double up = objective(in, b.begin, b.end);
  v[i] = saved - step;
  const double down = objective(in, b.begin, b.end);
  v[i] = saved;
  return (up - down) / (2 * step);
}

TEST_CASE("attention backward and scatter give the reference's gradients, added to the columns",
          "[kernels][attention]") {
  Inputs in;
  const auto cpu = kernels::make_cpu_backend();
  const Block b{5, 19, 1};
  const BlockEntries entries(*cpu, in.a, b, in.ids.data() + b.begin, in.ids.data());
  const kernels::EdgeBlock& g = entries.edges();
  std::vector<float> h = floats(in.h), s_src = floats(in.s_src), s_dst = floats(in.s_dst),
                     r = floats(in.r);
  const ConstMatrixView hv{h.data(), in.a.cols, kHeads * kWidth, kHeads * kWidth};
  const ConstMatrixView src{s_src.data(), in.a.cols, kHeads, kHeads};
  const ConstMatrixView dst{s_dst.data() + b.begin * kHeads, b.size(), kHeads, kHeads};
  const ConstMatrixView grad_out{r.data() + b.begin * kHeads * kWidth, b.size(), kHeads * kWidth,
                                 kHeads * kWidth};
  std::vector<float> alpha(static_cast<std::size_t>(g.entries * kHeads)), grad_z(alpha.size());
  cpu->attention_softmax(g, kHeads, dst, src, kSlope, alpha.data());
  Matrix grad_dst(b.size(), kHeads), grad_h(in.a.cols, kHeads * kWidth),
      grad_src(in.a.cols, kHeads);
  for (float& v : grad_h.storage()) v = 0.25f;  // the scatter adds
  for (float& v : grad_src.storage()) v = 0.25f;
  cpu->attention_backward(g, kHeads, alpha.data(), in.dropout, dst, src, kSlope, grad_out, hv,
                          grad_z.data(), grad_dst.view());
  cpu->attention_scatter(g, kHeads, alpha.data(), in.dropout, grad_out, grad_z.data(),
                         grad_h.view(), grad_src.view());
  for (LocalId row = b.begin; row < b.end; ++row)
    for (int k = 0; k < kHeads; ++k)
      CHECK(grad_dst.at(row - b.begin, k) ==
            Approx(central_difference(in, in.s_dst, row * kHeads + k, b)).margin(1e-4));
  for (LocalId c = 0; c < in.a.cols; ++c) {
    INFO("column " << c);
    for (int k = 0; k < kHeads; ++k)
      CHECK(grad_src.at(c, k) - 0.25f ==
            Approx(central_difference(in, in.s_src, c * kHeads + k, b)).margin(1e-4));
    for (int f = 0; f < kHeads * kWidth; ++f)
      CHECK(grad_h.at(c, f) - 0.25f ==
            Approx(central_difference(in, in.h, c * kHeads * kWidth + f, b)).margin(1e-4));
  }
}

TEST_CASE("attention dropout drops about p of the weights and scales the rest",
          "[kernels][attention]") {
  Inputs in;
  const Csr dense = test::random_csr(40, 40, 1.0f, 3);
  std::vector<GlobalId> ids(40);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<GlobalId>(5 * i);
  const auto cpu = kernels::make_cpu_backend();
  const BlockEntries entries(*cpu, dense, {0, 40, -1}, ids.data(), ids.data());
  std::vector<float> ones(static_cast<std::size_t>(40 * 40 * kHeads), 1.0f);
  Matrix h(40, kHeads * kWidth), out(40, kHeads * kWidth);
  for (float& v : h.storage()) v = 1.0f;
  cpu->attention_aggregate(entries.edges(), kHeads, ones.data(), in.dropout, h.view(), out.view());
  double mean = 0;
  for (float v : out.storage()) mean += v;
  mean /= static_cast<double>(out.size()) * 40;  // each output sums 40 weights of 1
  CHECK(mean == Approx(1.0).margin(0.03));       // kept with 1 - p, scaled by 1 / (1 - p)
  const float scaled = out.at(0, 0) * (1.0f - in.dropout.p);
  CHECK(std::abs(scaled - std::round(scaled)) < 1e-4);  // a whole number of kept weights
  CHECK(std::round(scaled) < 40.0f);                    // and some dropped
}

}  // namespace
}  // namespace strata
