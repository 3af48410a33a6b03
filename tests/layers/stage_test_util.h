// What the model tests share: a hand-made graph behind a BlockGraph, a stage of a model
// on the CPU backend over it, and finite-difference gradient checks.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <span>

#include "strata/core/matrix.h"
#include "strata/core/random.h"
#include "strata/graph/csr.h"
#include "strata/kernels/backend.h"
#include "strata/kernels/kernels.h"
#include "strata/layers/block_entries.h"
#include "strata/layers/model.h"

namespace strata::test {

// 5 vertices:   0 --- 1 --- 2
//               |   /
//               3 -     4 (isolated)
// Â is built by hand with self-loops and non-symmetric weights so Âᵀ != Â matters.
inline Csr hand_graph() {
  Csr a;
  a.rows = a.cols = 5;
  a.offsets = {0, 3, 7, 9, 12, 13};
  a.indices = {0, 1, 3, 0, 1, 2, 3, 1, 2, 0, 1, 3, 4};
  a.values = {.4f, .3f, .2f, .25f, .3f, .2f, .1f, .35f, .5f, .3f, .15f, .45f, 1.f};
  return a;
}

// One part, no halo: Â itself, its rows block by block, its transpose by a naive loop.
// `chunked` tells the stage that blocks of fewer rows read the others from history.
class HandGraph : public BlockGraph {
 public:
  explicit HandGraph(Csr a, bool chunked = false)
      : a_(std::move(a)), ids_(static_cast<std::size_t>(a_.rows)), chunked_(chunked) {
    for (std::size_t i = 0; i < ids_.size(); ++i) ids_[i] = static_cast<GlobalId>(3 * i + 1);
  }
  LocalId rows() const override { return a_.rows; }
  LocalId columns() const override { return a_.cols; }
  bool has_halo() const override { return false; }
  bool chunked() const override { return chunked_; }
  const GlobalId* ids(const Block& b) const override { return ids_.data() + b.begin; }
  void aggregate(const Block& b, ConstMatrixView x, MatrixView out) override {
    kernels::spmm(row_block(b), x, out);
  }
  void aggregate_bf16(const Block& b, Bf16RowsView x, MatrixView out) override {
    kernels::spmm(row_block(b), x, out);
  }
  void scatter_gradient(const Block& b, ConstMatrixView grad, MatrixView g) override {
    for (LocalId r = b.begin; r < b.end; ++r)
      for (EdgeOffset e = a_.offsets[r]; e < a_.offsets[r + 1]; ++e)
        for (std::int64_t c = 0; c < g.cols; ++c)
          g.at(a_.indices[e], c) += a_.value(r, e) * grad.at(r - b.begin, c);
  }
  void transpose_multiply(const Block& b, ConstMatrixView grad, MatrixView out) override {
    kernels::zero(out);
    scatter_gradient(b, grad, out);
  }
  void exchange(const Block&, MatrixView, bool) override {}
  void exchange_gradient(const Block&, MatrixView) override {}
  const kernels::EdgeBlock& entries(const Block& b) override {
    auto it = entries_.find({b.begin, b.end});
    if (it == entries_.end())
      it = entries_.try_emplace({b.begin, b.end}, *cpu_, a_, b, ids_.data() + b.begin, ids_.data())
               .first;
    return it->second.edges();
  }
  std::int64_t entry_count() const override { return a_.nnz(); }

 private:
  CsrView row_block(const Block& b) const { return rows_view(a_, b.begin, b.end); }
  Csr a_;
  std::vector<GlobalId> ids_;
  bool chunked_;
  std::unique_ptr<kernels::Backend> cpu_ = kernels::make_cpu_backend();
  std::map<std::pair<LocalId, LocalId>, BlockEntries> entries_;  // by rows
};

// n vertices, each row its own value 0.5 and two others' 0.25, values bf16 holds exactly:
// with 0/1 features Â X is exact in bf16 too.
inline Csr dyadic_graph(LocalId n) {
  Csr a;
  a.rows = a.cols = n;
  a.offsets.push_back(0);
  for (LocalId r = 0; r < n; ++r) {
    for (const LocalId c : {r, (7 * r + 3) % n, (13 * r + 5) % n}) {
      a.indices.push_back(c);
      a.values.push_back(c == r ? 0.5f : 0.25f);
    }
    a.offsets.push_back(static_cast<EdgeOffset>(a.indices.size()));
  }
  return a;
}

inline Matrix random_matrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Matrix m(rows, cols);
  Rng rng(seed);
  for (float& v : m.storage()) v = rng.uniform() * 2.0f - 1.0f;
  return m;
}

// The entries of m with |value| > 0.3, as CSR (columns ascending).
inline Csr sparse_part(const Matrix& m) {
  Csr c;
  c.rows = static_cast<LocalId>(m.rows());
  c.cols = static_cast<LocalId>(m.cols());
  for (std::int64_t r = 0; r < m.rows(); ++r) {
    for (std::int64_t k = 0; k < m.cols(); ++k)
      if (std::abs(m.at(r, k)) > 0.3f) {
        c.indices.push_back(static_cast<LocalId>(k));
        c.values.push_back(m.at(r, k));
      }
    c.offsets.push_back(static_cast<EdgeOffset>(c.indices.size()));
  }
  return c;
}

// Σ y ⊙ r, whose gradient with respect to y is r.
inline double dot(ConstMatrixView y, const Matrix& r) {
  double s = 0.0;
  for (std::int64_t i = 0; i < y.rows; ++i)
    for (std::int64_t j = 0; j < y.cols; ++j) s += double{y.at(i, j)} * r.at(i, j);
  return s;
}

// Checks analytic[i] against central differences of f over value[i]. Where a ReLU kink
// lies within the step (the one-sided slopes disagree) the step shrinks, down to eps / 64;
// a kink closer still must give the gradient one of the one-sided slopes (the subgradient
// the backward takes there).
inline void check_gradient(std::span<float> value, std::span<const float> analytic,
                           const std::function<double()>& f, float eps = 1e-2f) {
  REQUIRE(value.size() == analytic.size());
  const double mid = f();
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-2 * std::abs(b) + 2e-3; };
  for (std::size_t i = 0; i < value.size(); ++i) {
    const float saved = value[i];
    double left = 0, right = 0;
    for (float step = eps; step >= eps / 64; step /= 4) {
      value[i] = saved + step;
      const double up = f();
      value[i] = saved - step;
      const double down = f();
      value[i] = saved;
      right = (up - mid) / step, left = (mid - down) / step;
      if (near(left, right) || near(right, left)) break;
    }
    INFO("element " << i << ": " << analytic[i] << ", one-sided slopes " << left << " and "
                    << right);
    if (near(left, right) || near(right, left))
      REQUIRE(analytic[i] == Approx((left + right) / 2).epsilon(1e-2).margin(2e-3));
    else
      REQUIRE((near(analytic[i], left) || near(analytic[i], right)));
  }
  f();  // the outputs of the unperturbed values again
}

// A stage of layers [first, last) of `model` over a graph, on the CPU backend (whose
// memory is the host's, so the tests read and perturb its tensors in place).
class StageRun {
 public:
  StageRun(const ModelConfig& model, int first, int last, Csr a_hat,
           const Matrix* features = nullptr, bool sparse = false, bool chunked = false,
           RowCodec storage = RowCodec::kFloat32)
      : backend_(kernels::make_cpu_backend()), graph_(std::move(a_hat), chunked) {
    if (features && sparse) sparse_x_ = sparse_part(*features);
    if (features && sparse) x_.emplace(*backend_, sparse_x_.view());
    if (features && !sparse) x_.emplace(*backend_, features->view());
    stage_ = make_stage(
        {*backend_, model, graph_, x_ ? &*x_ : nullptr, StaleGrad::kDrop, 1.0f, false, storage},
        first, last);
  }
  Stage& stage() { return *stage_; }
  Parameters& parameters() { return stage_->parameters(); }
  Block every() const { return graph_.every_row(); }

  // The stage's output rows after a forward pass of every row.
  ConstMatrixView forward(bool training, std::int64_t epoch = 0) {
    stage_->begin_epoch(epoch, training);
    stage_->forward(every());
    return stage_->output_rows(every());
  }
  // The float gradients of the last forward with d / d output = r.
  std::vector<float> backward(const Matrix& r) {
    stage_->parameters().zero_grad();
    kernels::copy(r.view(), stage_->output_grad_rows(every()));
    stage_->backward(every());
    stage_->end_backward();
    stage_->parameters().finish_gradients();
    return stage_->parameters().grads_on_host();
  }
  // Every parameter value, perturbed in place by check_gradient.
  std::span<float> values() {
    return {stage_->parameters().values(), static_cast<std::size_t>(parameters().count())};
  }
  // Sets every bias to `value` (with zero biases a row whose ReLU inputs all die sits
  // exactly on a kink, where finite differences disagree with the gradient).
  void set_biases(float value) {
    std::vector<std::vector<float>> v = parameters().values_on_host();
    for (std::size_t t = 0; t < v.size(); ++t)
      if (parameters().shapes()[t].name.ends_with(".bias"))
        std::fill(v[t].begin(), v[t].end(), value);
    parameters().set_values(v);
  }

 private:
  std::unique_ptr<kernels::Backend> backend_;
  HandGraph graph_;
  Csr sparse_x_;
  std::optional<Features> x_;
  std::unique_ptr<Stage> stage_;
};

// Checks d Σ (output ⊙ r) / d input rows of a stage after the first against finite
// differences over `in`, the rows it receives.
inline void check_input_gradient(StageRun& run, Matrix& in, const Matrix& r) {
  const auto objective = [&] {
    kernels::copy(in.view(), run.stage().input_rows(run.every()));
    return dot(run.forward(true), r);
  };
  objective();
  run.backward(r);
  const ConstMatrixView grad = run.stage().input_grad_rows(run.every());
  const std::vector<float> analytic(grad.data, grad.data + grad.rows * grad.cols);
  check_gradient(in.storage(), analytic, objective, 1e-3f);
}

}  // namespace strata::test
