// Sparse input features: the first layer on CSR X must match the dense path (same
// dropout mask, same logits and gradients) and pass a finite-difference check.
#include <algorithm>

#include "layer_test_util.h"
#include "strata/kernels/kernels.h"
#include "strata/kernels/sparse_features.h"
#include "strata/layers/gcn_model.h"
#include "strata/layers/local_aggregator.h"
#include "strata/layers/optimizer.h"

namespace strata {
namespace {
using namespace test;

// A random matrix with about `density` non-zeros, dense and as CSR (columns ascending).
struct SparsePair {
  Matrix dense;
  Csr sparse;
};

SparsePair random_sparse(LocalId rows, LocalId cols, float density, std::uint64_t seed) {
  SparsePair p{Matrix(rows, cols), Csr{}};
  p.sparse.rows = rows;
  p.sparse.cols = cols;
  Rng rng(seed);
  for (LocalId r = 0; r < rows; ++r) {
    for (LocalId c = 0; c < cols; ++c) {
      if (rng.uniform() >= density) continue;
      p.dense.at(r, c) = rng.uniform() + 0.25f;
      p.sparse.indices.push_back(c);
      p.sparse.values.push_back(p.dense.at(r, c));
    }
    p.sparse.offsets.push_back(p.sparse.nnz());
  }
  return p;
}

// Â of a random symmetric graph on n vertices (some isolated), GCN-normalized.
Csr random_graph(LocalId n, std::uint64_t seed) {
  std::vector<Edge> edges;
  Rng rng(seed);
  for (int e = 0; e < 3 * n; ++e)
    edges.push_back(
        {static_cast<GlobalId>(rng.below(n - 3)), static_cast<GlobalId>(rng.below(n - 3))});
  const Csr a = build_csr(n, edges, {});
  return gcn_normalize(a, degrees_plus_one(a));
}

void check_close(std::span<const float> a, std::span<const float> b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("element " << i);
    REQUIRE(a[i] == Approx(b[i]).epsilon(1e-5).margin(1e-6));
  }
}

struct Run {
  std::vector<double> losses;
  std::vector<float> logits;
  std::vector<std::vector<float>> grads;  // of the last epoch, per parameter
};

// Trains `epochs` steps with dropout; dense or sparse input, everything else equal.
Run train(const ModelConfig& config, const SparsePair& x, bool sparse, int epochs) {
  const Csr a_hat = random_graph(static_cast<LocalId>(x.dense.rows()), 7);
  LocalAggregator agg(a_hat);
  GcnModel model(config);
  Adam adam(model.parameters(), AdamConfig{0.05f, 0.9f, 0.999f, 1e-8f, 5e-4f});
  SparseFeatures features(x.sparse.view());
  std::vector<GlobalId> ids(static_cast<std::size_t>(x.dense.rows()));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<GlobalId>(3 * i + 1);
  std::vector<std::int32_t> labels(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) labels[i] = static_cast<std::int32_t>(i % 3);
  const std::vector<std::uint8_t> mask(ids.size(), 1);
  Matrix grad(x.dense.rows(), config.classes);
  Run run;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    model.zero_grad();
    const Matrix& logits = sparse ? model.forward(agg, features, ids, true, epoch)
                                  : model.forward(agg, x.dense.view(), ids, true, epoch);
    run.losses.push_back(kernels::masked_log_softmax_nll(
        logits.view(), labels, mask, static_cast<double>(ids.size()), grad.view()));
    run.logits = logits.storage();
    model.backward(agg, grad.view());
    run.grads.clear();
    for (const Parameter& p : model.parameters())
      run.grads.emplace_back(p.grad.begin(), p.grad.end());
    adam.step();
  }
  return run;
}

void check_same_runs(const ModelConfig& config, const SparsePair& x) {
  const Run dense = train(config, x, false, 5);
  const Run sparse = train(config, x, true, 5);
  for (std::size_t e = 0; e < dense.losses.size(); ++e)
    CHECK(sparse.losses[e] == Approx(dense.losses[e]).epsilon(1e-5));
  check_close(sparse.logits, dense.logits);
  REQUIRE(sparse.grads.size() == dense.grads.size());
  for (std::size_t i = 0; i < dense.grads.size(); ++i) {
    INFO("parameter " << i);
    check_close(sparse.grads[i], dense.grads[i]);
  }
}

TEST_CASE("dropout_csr draws exactly the dense dropout mask", "[layers][sparse]") {
  const SparsePair x = random_sparse(33, 31, 0.3f, 1);
  const std::vector<GlobalId> ids = [] {
    std::vector<GlobalId> v(33);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<GlobalId>(1000 - 7 * i);
    return v;
  }();
  Matrix dense = x.dense;
  kernels::dropout(dense.view(), ids, 0.4f, 9, 3, 0);
  std::vector<float> values = x.sparse.values;
  kernels::dropout_csr(x.sparse.view(), values, ids, 0.4f, 9, 3, 0);
  SparseFeatures features(x.sparse.view());
  features.dropout(ids, 0.4f, 9, 3, 0);
  Matrix densified(33, 31);
  features.to_dense(densified.view());
  CHECK(densified.storage() == dense.storage());
  for (LocalId r = 0; r < 33; ++r)
    for (EdgeOffset k = x.sparse.offsets[r]; k < x.sparse.offsets[r + 1]; ++k)
      REQUIRE(values[k] == dense.at(r, x.sparse.indices[k]));
}

TEST_CASE("SparseFeatures transpose follows dropout and reset", "[layers][sparse]") {
  const SparsePair x = random_sparse(31, 17, 0.4f, 2);
  SparseFeatures features(x.sparse.view());
  const std::vector<GlobalId> ids = [] {
    std::vector<GlobalId> v(31);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<GlobalId>(i);
    return v;
  }();
  for (int round = 0; round < 2; ++round) {
    if (round == 1) features.dropout(ids, 0.5f, 1, 0, 0);
    const CsrView t = features.transposed_view();
    REQUIRE(t.rows == 17);
    Matrix from_t(31, 17), from_x(31, 17);
    features.to_dense(from_x.view());
    for (LocalId c = 0; c < t.rows; ++c)
      for (EdgeOffset k = t.offsets[c]; k < t.offsets[c + 1]; ++k)
        from_t.at(t.indices[k], c) = t.values[k];
    CHECK(from_t.storage() == from_x.storage());
  }
  features.reset();
  Matrix raw(31, 17);
  features.to_dense(raw.view());
  CHECK(raw.storage() == x.dense.storage());
}

TEST_CASE("sparse and dense input train alike, transform-first layer 0", "[layers][sparse]") {
  const SparsePair x = random_sparse(61, 57, 0.1f, 3);
  check_same_runs(ModelConfig{57, 8, 3, 2, 0.5f, true, 11}, x);
  check_same_runs(ModelConfig{57, 6, 3, 3, 0.3f, true, 12}, x);
  check_same_runs(ModelConfig{57, 8, 3, 1, 0.5f, false, 13}, x);
}

TEST_CASE("sparse and dense input train alike, aggregate-first layer 0", "[layers][sparse]") {
  const SparsePair x = random_sparse(40, 5, 0.3f, 4);
  check_same_runs(ModelConfig{5, 16, 3, 2, 0.5f, true, 14}, x);
}

TEST_CASE("sparse first layer gradients, finite differences", "[layers][sparse]") {
  LocalAggregator agg(hand_graph());
  const SparsePair x = random_sparse(5, 7, 0.4f, 5);
  SparseFeatures features(x.sparse.view());
  GcnLayer layer(7, 2, true, 5, 0);
  for (float& b : layer.bias()) b = 0.1f;
  const Matrix r = random_matrix(5, 2, 6);
  Matrix y(5, 2);
  auto objective = [&] {
    layer.forward_sparse(agg, features.view(), features.transposed_view(), y.view(), 0);
    return dot(y, r);
  };
  objective();
  layer.zero_grad();
  layer.backward(agg, r.view(), MatrixView{}, 0);
  ParameterList params = layer.parameters();
  const std::vector<float> dw(params[0].grad.begin(), params[0].grad.end());
  const std::vector<float> db(params[1].grad.begin(), params[1].grad.end());
  check_gradient(params[0].value, dw, objective);
  check_gradient(params[1].value, db, objective);
}

TEST_CASE("GcnModel on sparse input, finite differences", "[layers][sparse]") {
  LocalAggregator agg(hand_graph());
  const SparsePair x = random_sparse(5, 9, 0.4f, 7);
  SparseFeatures features(x.sparse.view());
  GcnModel model(ModelConfig{9, 4, 2, 2, 0.0f, true, 21});
  for (GcnLayer& layer : model.layers())
    for (float& b : layer.bias()) b = 0.05f;
  const Matrix r = random_matrix(5, 2, 8);
  const std::vector<GlobalId> ids{0, 1, 2, 3, 4};
  auto objective = [&] { return dot(model.forward(agg, features, ids, true, 0), r); };
  objective();
  model.zero_grad();
  model.backward(agg, r.view());
  for (Parameter& p : model.parameters()) {
    const std::vector<float> analytic(p.grad.begin(), p.grad.end());
    check_gradient(p.value, analytic, objective, 1e-3f);
  }
}

}  // namespace
}  // namespace strata
