// The CUDA backend against the CPU backend: its row kernels, gradient sums and sparse
// features at awkward sizes (test_gpu_stages.cpp trains whole models on it). Skips with a
// message when no CUDA device answers.
#include <catch2/catch.hpp>
#include <cstring>
#include <numeric>

#include "gpu_test_util.h"
#include "strata/core/device.h"
#include "strata/kernels/backend.h"

namespace strata {
namespace {

using test::no_device;
using test::random_matrix;

void require_close(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    REQUIRE(got[i] == Approx(want[i]).epsilon(tol).margin(tol));
}

// The row kernels' results on one backend, flattened.
std::vector<float> row_ops(const kernels::Backend& b, const Matrix& x, std::vector<LocalId> list) {
  const kernels::Tensor t = kernels::to_backend(b, x.view());
  const kernels::Buffer ids = kernels::to_backend<LocalId>(b, list);
  const auto n = static_cast<std::int64_t>(list.size());
  kernels::Tensor packed(b, n, x.cols()), sums(b, 1, x.cols()), out(b, x.rows(), x.cols());
  b.gather_rows(t.view(), ids.as<LocalId>(), n, packed.data());
  b.copy(t.view(), out.view());
  b.scatter_rows(packed.data(), ids.as<LocalId>(), n, out.view(), true);
  b.column_sums(t.view(), sums.data(), false);
  b.axpy(-0.75f, t.view(), out.view());
  b.scale(out.view(), 1.5f);
  std::vector<float> all = kernels::to_host(b, out).storage();
  const Matrix s = kernels::to_host(b, sums);
  all.insert(all.end(), s.storage().begin(), s.storage().end());
  return all;
}

TEST_CASE("the CUDA backend's gather, scatter, column sums, axpy and scale equal the CPU's",
          "[gpu][backend]") {
  if (no_device()) return;
  gpu::Context context(0);
  const auto cpu = kernels::make_cpu_backend();
  const auto cuda = kernels::make_cuda_backend(context);
  for (std::int64_t rows : {1, 31, 257, 1001})
    for (std::int64_t cols : {1, 33}) {
      INFO(rows << " x " << cols);
      const Matrix x = random_matrix(rows, cols, 7);
      std::vector<LocalId> list;
      for (LocalId r = static_cast<LocalId>(rows) - 1; r >= 0; r -= 3) list.push_back(r);
      require_close(row_ops(*cuda, x, list), row_ops(*cpu, x, list), 1e-5f);
    }
}

// The fused passes (mix, axpy_scale, dropout_copy) on one backend, flattened: x, y, z.
std::vector<float> fused_ops(const kernels::Backend& b, const Matrix& x, const Matrix& y,
                             const std::vector<GlobalId>& ids) {
  kernels::Tensor xt = kernels::to_backend(b, x.view()), yt = kernels::to_backend(b, y.view());
  kernels::Tensor zt(b, x.rows(), x.cols());
  const kernels::Buffer row_ids = kernels::to_backend<GlobalId>(b, ids);
  b.mix(0.1f, xt.view(), 0.9f, yt.view());
  b.axpy_scale(0.3f, xt.view(), yt.view(), 0.7f);
  b.dropout_copy(yt.view(), zt.view(), row_ids.as<GlobalId>(), 0.5f, 3, 2, 1);
  b.dropout_copy(zt.view(), zt.view(), row_ids.as<GlobalId>(), 0.0f, 3, 2, 2);
  std::vector<float> all = kernels::to_host(b, xt).storage();
  for (const kernels::Tensor* t : {&yt, &zt}) {
    const Matrix m = kernels::to_host(b, *t);
    all.insert(all.end(), m.storage().begin(), m.storage().end());
  }
  return all;
}

// Both backends round each product and sum once (no fused multiply-adds): bit for bit.
TEST_CASE("the CUDA backend's mix, axpy_scale and dropout_copy equal the CPU's", "[gpu][backend]") {
  if (no_device()) return;
  gpu::Context context(0);
  const auto cpu = kernels::make_cpu_backend();
  const auto cuda = kernels::make_cuda_backend(context);
  for (std::int64_t rows : {1, 31, 257})
    for (std::int64_t cols : {1, 33, 64}) {
      INFO(rows << " x " << cols);
      const Matrix x = random_matrix(rows, cols, 3), y = random_matrix(rows, cols, 4);
      std::vector<GlobalId> ids(static_cast<std::size_t>(rows));
      std::iota(ids.begin(), ids.end(), GlobalId{100});
      REQUIRE(fused_ops(*cuda, x, y, ids) == fused_ops(*cpu, x, y, ids));
    }
}

// GCNII's fused layer passes on one backend, flattened: s, y, y dropped, then the backward's
// dy, dz, dh0 and the weight gradient sᵀ dy (summed in the backend's type, cast to float).
std::vector<float> layer_passes(const kernels::Backend& b, const Matrix& h0, const Matrix& s,
                                const Matrix& w, const Matrix& grad) {
  kernels::Tensor h0t = kernels::to_backend(b, h0.view()), st = kernels::to_backend(b, s.view());
  const kernels::Tensor wt = kernels::to_backend(b, w.view());
  kernels::Tensor gt = kernels::to_backend(b, grad.view());
  kernels::Tensor yt(b, s.rows(), w.cols()), zt(b, s.rows(), s.cols()), qt(b, s.rows(), w.cols());
  std::vector<GlobalId> ids(static_cast<std::size_t>(s.rows()));
  std::iota(ids.begin(), ids.end(), GlobalId{7});
  const kernels::Buffer row_ids = kernels::to_backend<GlobalId>(b, ids);
  const kernels::DropInto next{qt.view(), row_ids.as<GlobalId>(), 0.5f, 3, 1, 2};
  b.mix_gemm_relu(0.1f, h0t.view(), 0.9f, st.view(), wt.view(), yt.view(), next);
  const std::int64_t n = s.cols() * w.cols();
  const std::size_t width = dtype_size(b.gradient_type());
  kernels::Buffer sums = kernels::to_backend<std::byte>(
      b, std::vector<std::byte>(static_cast<std::size_t>(n) * width));  // zeros in either type
  b.relu_gemm_split(yt.view(), gt.view(), wt.view(), zt.view(), 0.3f, h0t.view(), 0.7f,
                    {gt.view(), row_ids.as<GlobalId>(), 0.5f, 3, 1, 4},
                    {0.6f, st.view(), {sums.as<std::byte>(), s.cols(), w.cols()}});
  std::vector<float> all;
  for (const kernels::Tensor* t : {&st, &yt, &qt, &gt, &zt, &h0t}) {
    const Matrix m = kernels::to_host(b, *t);
    all.insert(all.end(), m.storage().begin(), m.storage().end());
  }
  kernels::Buffer cast(b, static_cast<std::size_t>(n) * sizeof(float));
  b.cast_gradients(sums.data(), cast.as<float>(), n);
  std::vector<float> weight(static_cast<std::size_t>(n));
  b.download(weight.data(), cast.data(), weight.size() * sizeof(float));
  all.insert(all.end(), weight.begin(), weight.end());
  return all;
}

// cuBLAS and OpenBLAS sum the products in different orders: close, not equal.
TEST_CASE("the CUDA backend's fused layer passes equal the CPU's", "[gpu][backend]") {
  if (no_device()) return;
  gpu::Context context(0);
  const auto cpu = kernels::make_cpu_backend();
  const auto cuda = kernels::make_cuda_backend(context);
  for (std::int64_t rows : {1, 513, 1100})
    for (std::int64_t width : {8, 64}) {
      INFO(rows << " x " << width);
      const Matrix h0 = random_matrix(rows, width, 1), s = random_matrix(rows, width, 2);
      const Matrix w = random_matrix(width, width, 3), grad = random_matrix(rows, width, 4);
      require_close(layer_passes(*cuda, h0, s, w, grad), layer_passes(*cpu, h0, s, w, grad), 1e-4f);
    }
}

// alpha aᵀ b and column sums accumulated onto 1s in the backend's gradient type, as floats.
std::vector<float> gradient_sums(const kernels::Backend& b, const Matrix& x, const Matrix& y) {
  const std::size_t width = dtype_size(b.gradient_type());
  const std::int64_t n = x.cols() * y.cols() + y.cols();
  const std::vector<std::byte> ones = [&] {
    std::vector<std::byte> v(static_cast<std::size_t>(n) * width);
    for (std::int64_t i = 0; i < n; ++i) {
      const double one_d = 1.0;
      const float one_f = 1.0f;
      std::memcpy(v.data() + i * width, width == 8 ? static_cast<const void*>(&one_d) : &one_f,
                  width);
    }
    return v;
  }();
  kernels::Buffer sums = kernels::to_backend<std::byte>(b, ones);
  kernels::Buffer out(b, static_cast<std::size_t>(n) * sizeof(float));
  const kernels::Tensor xt = kernels::to_backend(b, x.view()),
                        yt = kernels::to_backend(b, y.view());
  std::byte* base = sums.as<std::byte>();
  b.gemm_tn_accumulate(0.5f, xt.view(), yt.view(), {base, x.cols(), y.cols()});
  b.column_sums_accumulate(yt.view(), {base + x.cols() * y.cols() * width, 1, y.cols()});
  b.cast_gradients(sums.data(), out.as<float>(), n);
  std::vector<float> host(static_cast<std::size_t>(n));
  b.download(host.data(), out.data(), host.size() * sizeof(float));
  return host;
}

TEST_CASE("the CUDA backend's gradient sums (float) equal the CPU backend's (double)",
          "[gpu][backend]") {
  if (no_device()) return;
  gpu::Context context(0);
  const auto cpu = kernels::make_cpu_backend();
  const auto cuda = kernels::make_cuda_backend(context);
  CHECK(cuda->gradient_type() == DType::kFloat32);
  for (std::int64_t rows : {1, 31, 257, 1001})
    for (std::int64_t cols : {1, 33}) {
      INFO(rows << " x " << cols);
      const Matrix x = random_matrix(rows, cols, 8), y = random_matrix(rows, 9, 9);
      require_close(gradient_sums(*cuda, x, y), gradient_sums(*cpu, x, y), 1e-4f);
    }
}

// The entries of m with |value| > 0.5 (a sparse matrix with about half its entries).
Csr sparse_part(const Matrix& m) {
  Csr c;
  c.rows = static_cast<LocalId>(m.rows());
  c.cols = static_cast<LocalId>(m.cols());
  for (std::int64_t r = 0; r < m.rows(); ++r) {
    for (std::int64_t k = 0; k < m.cols(); ++k)
      if (std::abs(m.at(r, k)) > 0.5f) {
        c.indices.push_back(static_cast<LocalId>(k));
        c.values.push_back(m.at(r, k));
      }
    c.offsets.push_back(static_cast<EdgeOffset>(c.indices.size()));
  }
  return c;
}

// X · W, Xᵀ · D and X itself under dropout, then raw again, on one backend, flattened.
std::vector<float> sparse_ops(const kernels::Backend& b, const Csr& x, const Matrix& w,
                              const Matrix& d) {
  const auto features = b.sparse_features(x.view());
  std::vector<GlobalId> ids(static_cast<std::size_t>(x.rows));
  std::iota(ids.begin(), ids.end(), GlobalId{40});
  const kernels::Buffer id = kernels::to_backend<GlobalId>(b, ids);
  kernels::Tensor y(b, x.rows, w.cols()), g(b, x.cols, d.cols()), dense(b, x.rows, x.cols);
  const kernels::Tensor wt = kernels::to_backend(b, w.view()),
                        dt = kernels::to_backend(b, d.view());
  std::vector<float> all;
  for (float p : {0.5f, 0.0f}) {
    features->dropout(id.as<GlobalId>(), p, 7, 3, 0);
    features->multiply(wt.view(), y.view());
    features->multiply_transposed(dt.view(), g.view(), 0.0f);
    features->to_dense(dense.view());
    for (const kernels::Tensor* t : {&y, &g, &dense}) {
      const Matrix host = kernels::to_host(b, *t);
      all.insert(all.end(), host.storage().begin(), host.storage().end());
    }
  }
  return all;
}

TEST_CASE("sparse features on the CUDA backend: dropout masks and products equal the CPU's",
          "[gpu][backend]") {
  if (no_device()) return;
  gpu::Context context(0);
  const auto cpu = kernels::make_cpu_backend();
  const auto cuda = kernels::make_cuda_backend(context);
  for (std::int64_t rows : {1, 31, 257})
    for (std::int64_t cols : {1, 33, 96}) {
      INFO(rows << " x " << cols);
      const Csr x = sparse_part(random_matrix(rows, cols, 3));
      const Matrix w = random_matrix(cols, 17, 4), d = random_matrix(rows, 9, 5);
      require_close(sparse_ops(*cuda, x, w, d), sparse_ops(*cpu, x, w, d), 1e-5f);
    }
}

}  // namespace
}  // namespace strata
