// Sparse input features (kernels/sparse_features.h): the sparse dropout draws the dense
// mask entry for entry, and Xᵀ follows X's values through dropout and reset.
#include <bit>
#include <catch2/catch.hpp>

#include "strata/core/random.h"
#include "strata/kernels/kernels.h"
#include "strata/kernels/sparse_features.h"
#include "test_util.h"

namespace strata {
namespace {

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

TEST_CASE("dropout_csr draws exactly the dense dropout mask", "[kernels][sparse]") {
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

TEST_CASE("dropout_csr_transposed drops each entry of the transpose as dropout_csr drops it",
          "[kernels][sparse]") {
  struct Shape {
    LocalId rows, cols;
    float density;
  };
  for (const Shape shape : {Shape{1, 1, 1.0f}, Shape{33, 31, 0.3f}, Shape{200, 17, 0.5f},
                            Shape{7, 130, 0.1f}, Shape{40, 3, 0.0f}}) {
    for (const float p : {0.0f, 0.4f, 0.9f}) {
      INFO(shape.rows << " x " << shape.cols << ", p " << p);
      const SparsePair x = random_sparse(shape.rows, shape.cols, shape.density, 3);
      std::vector<GlobalId> ids(static_cast<std::size_t>(shape.rows));
      for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<GlobalId>(5000 - 13 * i);
      std::vector<float> dropped = x.sparse.values;
      kernels::dropout_csr(x.sparse.view(), dropped, ids, p, 21, 6, 1);
      std::vector<EdgeOffset> source;
      Csr t = transpose_with_source(x.sparse.view(), source);
      for (std::size_t k = 0; k < source.size(); ++k) t.values[k] = x.sparse.values[source[k]];
      std::vector<float> t_dropped(t.values.size(), -1.0f);
      kernels::dropout_csr_transposed(t.view(), t_dropped, ids, p, 21, 6, 1);
      for (std::size_t k = 0; k < source.size(); ++k)
        REQUIRE(std::bit_cast<std::uint32_t>(t_dropped[k]) ==
                std::bit_cast<std::uint32_t>(dropped[source[k]]));
    }
  }
}

// After dropout the views hold only the kept entries (no zeros), in order, and a product over
// them equals one over every entry with the dropped ones zero, for X and Xᵀ; rows
// that lose every entry, or their last ones, included (p 0.9).
TEST_CASE("SparseFeatures keeps only the entries dropout kept", "[kernels][sparse]") {
  for (const float p : {0.3f, 0.9f}) {
    INFO("p " << p);
    const SparsePair x = random_sparse(300, 45, 0.3f, 5);
    std::vector<GlobalId> ids(300);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<GlobalId>(2 * i + 9);
    SparseFeatures features(x.sparse.view());
    features.dropout(ids, p, 8, 2, 0);
    Matrix dense = x.dense;
    kernels::dropout(dense.view(), ids, p, 8, 2, 0);
    const CsrView kept = features.view();
    std::int64_t nonzeros = 0;
    for (const float v : dense.storage()) nonzeros += v != 0.0f;
    REQUIRE(kept.nnz() == nonzeros);
    REQUIRE(features.transposed_view().nnz() == nonzeros);
    for (LocalId r = 0; r < kept.rows; ++r)
      for (EdgeOffset k = kept.offsets[r]; k < kept.offsets[r + 1]; ++k) {
        REQUIRE(kept.values[k] != 0.0f);
        REQUIRE(kept.values[k] == dense.at(r, kept.indices[k]));
        if (k > kept.offsets[r]) REQUIRE(kept.indices[k - 1] < kept.indices[k]);
      }
    std::vector<float> zeroed = x.sparse.values;
    kernels::dropout_csr(x.sparse.view(), zeroed, ids, p, 8, 2, 0);
    CsrView all = x.sparse.view();
    all.values = zeroed.data();
    std::vector<float> ws, ds;
    const MatrixView w = test::random_view(ws, 45, 19, 0, 1);
    const MatrixView d = test::random_view(ds, 300, 19, 0, 2);
    Matrix y_kept(300, 19), y_all(300, 19), g_kept(45, 19), g_all(45, 19);
    kernels::spmm(kept, w, y_kept.view());
    kernels::spmm(all, w, y_all.view());
    CHECK(y_kept.storage() == y_all.storage());
    std::vector<EdgeOffset> source;
    Csr t = transpose_with_source(all, source);
    for (std::size_t k = 0; k < source.size(); ++k) t.values[k] = zeroed[source[k]];
    kernels::spmm(features.transposed_view(), d, g_kept.view());
    kernels::spmm(t.view(), d, g_all.view());
    CHECK(g_kept.storage() == g_all.storage());
  }
}

TEST_CASE("SparseFeatures transpose follows dropout and reset", "[kernels][sparse]") {
  const SparsePair x = random_sparse(31, 17, 0.4f, 2);
  SparseFeatures features(x.sparse.view());
  const std::vector<GlobalId> ids = [] {
    std::vector<GlobalId> v(31);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<GlobalId>(3 * i + 1);
    return v;
  }();
  // raw, dropped, raw again (reset), dropped with another epoch
  for (int round = 0; round < 4; ++round) {
    if (round == 1 || round == 3) features.dropout(ids, 0.5f, 1, round, 0);
    if (round == 2) features.reset();
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

}  // namespace
}  // namespace strata
