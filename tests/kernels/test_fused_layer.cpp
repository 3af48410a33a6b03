// The fused layer passes (kernels::mix_gemm_relu, relu_gemm_split) against a naive double
// reference and against the calls they fuse, at sizes around their 512-row blocks, on
// strided views, narrower than their 16-wide blocking and wider; and the same bits
// whatever the thread count.
#include <omp.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <numeric>

#include "strata/kernels/kernels.h"
#include "test_util.h"

namespace strata {
namespace {

struct Shape {
  std::int64_t rows, in, out;  // s is rows x in, w is in x out
};

// Within float rounding of a sum of `terms` products of values in [-1, 1].
void require_close(ConstMatrixView got, ConstMatrixView want, double tolerance) {
  for (std::int64_t r = 0; r < got.rows; ++r)
    for (std::int64_t c = 0; c < got.cols; ++c) {
      INFO("row " << r << " col " << c);
      REQUIRE(std::abs(static_cast<double>(got.at(r, c)) - want.at(r, c)) <= tolerance);
    }
}

void require_same(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    REQUIRE(std::bit_cast<std::uint32_t>(a[i]) == std::bit_cast<std::uint32_t>(b[i]));
}

// y = relu((beta s + alpha h0) w) in double, s updated as mix leaves it.
Matrix reference_forward(float alpha, ConstMatrixView h0, float beta, ConstMatrixView s,
                         ConstMatrixView w) {
  Matrix y(s.rows, w.cols, 0.0f);
  for (std::int64_t r = 0; r < s.rows; ++r)
    for (std::int64_t j = 0; j < w.cols; ++j) {
      double sum = 0.0;
      for (std::int64_t k = 0; k < s.cols; ++k)
        sum += (static_cast<double>(beta) * s.at(r, k) + static_cast<double>(alpha) * h0.at(r, k)) *
               w.at(k, j);
      y.at(r, j) = static_cast<float>(std::max(sum, 0.0));
    }
  return y;
}

const Shape kShapes[] = {{0, 16, 16},    {1, 64, 64}, {511, 64, 64}, {513, 33, 20},
                         {1100, 16, 48}, {700, 8, 8}, {600, 64, 5}};

TEST_CASE("mix_gemm_relu equals a naive reference and the calls it fuses", "[kernels][fused]") {
  for (const Shape& shape : kShapes) {
    INFO(shape.rows << " x " << shape.in << " -> " << shape.out);
    std::vector<float> h0s, ss, ws, ys, ss2, ys2;
    const MatrixView h0 = test::random_view(h0s, shape.rows, shape.in, 3, 1);
    const MatrixView s = test::random_view(ss, shape.rows, shape.in, 1, 2);
    const MatrixView w = test::random_view(ws, shape.in, shape.out, 2, 3);
    const MatrixView y = test::random_view(ys, shape.rows, shape.out, 2, 4);
    const MatrixView s2 = test::random_view(ss2, shape.rows, shape.in, 1, 2);
    const MatrixView y2 = test::random_view(ys2, shape.rows, shape.out, 2, 4);
    const Matrix want = reference_forward(0.1f, h0, 0.9f, s, w);
    kernels::mix_gemm_relu(0.1f, h0, 0.9f, s, w, y, {});
    kernels::mix(0.1f, h0, 0.9f, s2);
    kernels::gemm(false, false, 1.0f, s2, w, 0.0f, y2);
    kernels::relu_forward(y2, y2);
    require_same(ss, ss2);  // the mix is elementwise: the same bits
    require_close(y, want.view(), 1e-5 * static_cast<double>(shape.in));
    require_close(y, y2, 1e-6 * static_cast<double>(shape.in));
  }
}

// The drop into the next input, into another buffer or in place, with and without
// dropout: exactly dropout_copy's entries of the pass's own output.
TEST_CASE("mix_gemm_relu drops its output as dropout_copy does", "[kernels][fused]") {
  for (const Shape& shape : kShapes)
    for (const float p : {0.0f, 0.4f})
      for (const bool in_place : {false, true}) {
        INFO(shape.rows << " x " << shape.in << " -> " << shape.out << ", p " << p
                        << (in_place ? ", in place" : ""));
        std::vector<float> h0s, ss, ws, ys, qs;
        const MatrixView h0 = test::random_view(h0s, shape.rows, shape.in, 3, 1);
        const MatrixView s = test::random_view(ss, shape.rows, shape.in, 1, 2);
        const MatrixView w = test::random_view(ws, shape.in, shape.out, 2, 3);
        const MatrixView y = test::random_view(ys, shape.rows, shape.out, 2, 4);
        const MatrixView q = in_place ? y : test::random_view(qs, shape.rows, shape.out, 1, 5);
        std::vector<GlobalId> ids(static_cast<std::size_t>(shape.rows));
        for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<GlobalId>(3 * i + 1);
        kernels::mix_gemm_relu(0.1f, h0, 0.9f, s, w, y, {q, ids.data(), p, 9, 2, 4});
        // The undropped output, recomputed the same way, then dropped by the plain kernel.
        std::vector<float> h0s2, ss2, ys2, qs2;
        const MatrixView h02 = test::random_view(h0s2, shape.rows, shape.in, 3, 1);
        const MatrixView s2 = test::random_view(ss2, shape.rows, shape.in, 1, 2);
        const MatrixView y2 = test::random_view(ys2, shape.rows, shape.out, 2, 4);
        const MatrixView q2 = test::random_view(qs2, shape.rows, shape.out, 1, 5);
        kernels::mix_gemm_relu(0.1f, h02, 0.9f, s2, w, y2, {});
        kernels::dropout_copy(y2, in_place ? y2 : q2, ids, p, 9, 2, 4);
        require_same(in_place ? ys : qs, in_place ? ys2 : qs2);
        if (!in_place) require_same(ys, ys2);  // y itself stays undropped
      }
}

// The backward's operands, the same numbers each time they are drawn for a shape.
struct BackwardOperands {
  std::vector<float> ys, gys, ws, gzs, g0s;
  MatrixView y, gy, w, gz, g0;
  explicit BackwardOperands(const Shape& shape)
      : y(test::random_view(ys, shape.rows, shape.out, 1, 1)),
        gy(test::random_view(gys, shape.rows, shape.out, 2, 2)),
        w(test::random_view(ws, shape.in, shape.out, 0, 3)),
        gz(test::random_view(gzs, shape.rows, shape.in, 3, 4)),
        g0(test::random_view(g0s, shape.rows, shape.in, 1, 5)) {}
};

TEST_CASE("relu_gemm_split equals a naive reference and the calls it fuses", "[kernels][fused]") {
  for (const Shape& shape : kShapes) {
    INFO(shape.rows << " x " << shape.in << " <- " << shape.out);
    BackwardOperands a(shape), b(shape);
    const MatrixView y = a.y, gy = a.gy, w = a.w, gz = a.gz, g0 = a.g0;
    Matrix dz(shape.rows, shape.in, 0.0f), dh0(shape.rows, shape.in, 0.0f);
    for (std::int64_t r = 0; r < shape.rows; ++r)
      for (std::int64_t k = 0; k < shape.in; ++k) {
        double sum = 0.0;
        for (std::int64_t j = 0; j < shape.out; ++j)
          sum += (y.at(r, j) > 0.0f ? gy.at(r, j) : 0.0) * w.at(k, j);
        dh0.at(r, k) = static_cast<float>(g0.at(r, k) + 0.3 * sum);
        dz.at(r, k) = static_cast<float>(0.7 * sum);
      }
    kernels::relu_gemm_split(y, gy, w, gz, 0.3f, g0, 0.7f, {}, {});
    kernels::relu_backward(b.y, b.gy, b.gy);
    kernels::gemm(false, true, 1.0f, b.gy, b.w, 0.0f, b.gz);
    kernels::axpy_scale(0.3f, b.gz, b.g0, 0.7f);
    require_same(a.gys, b.gys);  // the ReLU's mask: the same bits
    require_close(gz, dz.view(), 1e-5 * static_cast<double>(shape.out));
    require_close(g0, dh0.view(), 1e-5 * static_cast<double>(shape.out));
    require_close(gz, b.gz, 1e-6 * static_cast<double>(shape.out));
    require_close(g0, b.g0, 1e-6 * static_cast<double>(shape.out));
  }
}

// The gradient's dropout first, then the rest: as dropout() and then the unfused calls.
TEST_CASE("relu_gemm_split drops the gradient as dropout does, before the ReLU's mask",
          "[kernels][fused]") {
  for (const Shape& shape : kShapes)
    for (const float p : {0.0f, 0.4f}) {
      INFO(shape.rows << " x " << shape.in << " <- " << shape.out << ", p " << p);
      BackwardOperands a(shape), b(shape);
      std::vector<GlobalId> ids(static_cast<std::size_t>(shape.rows));
      for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<GlobalId>(5 * i + 2);
      kernels::relu_gemm_split(a.y, a.gy, a.w, a.gz, 0.3f, a.g0, 0.7f,
                               {a.gy, ids.data(), p, 4, 3, 6}, {});
      kernels::dropout(b.gy, ids, p, 4, 3, 6);
      kernels::relu_gemm_split(b.y, b.gy, b.w, b.gz, 0.3f, b.g0, 0.7f, {}, {});
      require_same(a.gys, b.gys);
      require_same(a.gzs, b.gzs);
      require_same(a.g0s, b.g0s);
    }
}

// The weight gradient added in the same pass: the bits of gemm_tn_accumulate after the
// unfused pass, over several gradient groups (1,024 rows) and a partial one, with and
// without the drop, into sums that already hold a value.
TEST_CASE("relu_gemm_split adds the weight gradient as gemm_tn_accumulate does",
          "[kernels][fused]") {
  for (const Shape& shape : {Shape{2500, 64, 64}, Shape{1024, 33, 20}, Shape{700, 8, 8},
                             Shape{1, 64, 64}, Shape{3000, 64, 5}})
    for (const float p : {0.0f, 0.4f}) {
      INFO(shape.rows << " x " << shape.in << " <- " << shape.out << ", p " << p);
      BackwardOperands a(shape), b(shape);
      std::vector<float> ss;
      const MatrixView s = test::random_view(ss, shape.rows, shape.in, 2, 7);
      std::vector<GlobalId> ids(static_cast<std::size_t>(shape.rows));
      for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<GlobalId>(3 * i + 1);
      const auto size = static_cast<std::size_t>(shape.in * shape.out);
      std::vector<double> fused(size, 0.25), separate(size, 0.25);
      kernels::relu_gemm_split(a.y, a.gy, a.w, a.gz, 0.3f, a.g0, 0.7f,
                               {a.gy, ids.data(), p, 4, 3, 6}, {0.8, s, fused});
      kernels::relu_gemm_split(b.y, b.gy, b.w, b.gz, 0.3f, b.g0, 0.7f,
                               {b.gy, ids.data(), p, 4, 3, 6}, {});
      kernels::gemm_tn_accumulate(s, b.gy, separate, 0.8);
      require_same(a.gys, b.gys);
      require_same(a.gzs, b.gzs);
      require_same(a.g0s, b.g0s);
      for (std::size_t i = 0; i < size; ++i)
        REQUIRE(std::bit_cast<std::uint64_t>(fused[i]) ==
                std::bit_cast<std::uint64_t>(separate[i]));
      double sum = 0.25;  // entry (0, 0) against its definition
      for (std::int64_t r = 0; r < shape.rows; ++r)
        sum += 0.8 * static_cast<double>(s.at(r, 0)) * b.gy.at(r, 0);
      REQUIRE(std::abs(fused[0] - sum) <= 1e-9 * static_cast<double>(shape.rows));
    }
}

// Blocks are fixed by row, not by thread: 1, 2 and 3 threads give the same bits.
TEST_CASE("the fused passes do not depend on the thread count", "[kernels][fused]") {
  const int threads = omp_get_max_threads();
  std::vector<std::vector<float>> results;
  for (const int t : {1, 2, 3}) {
    omp_set_num_threads(t);
    std::vector<float> h0s, ss, ws, ys, gzs;
    const MatrixView h0 = test::random_view(h0s, 1700, 64, 0, 1);
    const MatrixView s = test::random_view(ss, 1700, 64, 0, 2);
    const MatrixView w = test::random_view(ws, 64, 64, 0, 3);
    const MatrixView y = test::random_view(ys, 1700, 64, 0, 4);
    const MatrixView gz = test::random_view(gzs, 1700, 64, 0, 5);
    kernels::mix_gemm_relu(0.1f, h0, 0.9f, s, w, y, {});
    std::vector<GlobalId> ids(1700);
    std::iota(ids.begin(), ids.end(), GlobalId{0});
    std::vector<float> as;
    const MatrixView a = test::random_view(as, 1700, 64, 0, 6);
    std::vector<double> sums(64 * 64, 0.5);
    kernels::relu_gemm_split(y, s, w, gz, 0.3f, h0, 0.7f, {s, ids.data(), 0.3f, 1, 2, 3},
                             {0.9, a, sums});
    std::vector<float> sums_bits(sums.size() * 2);
    std::memcpy(sums_bits.data(), sums.data(), sums.size() * sizeof(double));
    for (auto* v : {&h0s, &ss, &ys, &gzs, &sums_bits}) results.push_back(*v);
  }
  omp_set_num_threads(threads);
  for (std::size_t i = 5; i < results.size(); ++i) require_same(results[i], results[i % 5]);
}

}  // namespace
}  // namespace strata
