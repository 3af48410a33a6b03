// Every GPU kernel against its CPU twin at awkward sizes (empty rows, widths that are not
// multiples of a warp). Skips with a message when no CUDA device answers.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "backend_checks.h"
#include "gpu_test_util.h"
#include "strata/core/block_pool.h"
#include "strata/core/device.h"
#include "strata/kernels/backend.h"
#include "strata/kernels/gpu.h"
#include "strata/kernels/kernels.h"
#include "strata/kernels/row_codec_math.h"

namespace strata {
namespace {

namespace kg = kernels::gpu;

using test::no_device;
using test::random_matrix;

void require_close(const Matrix& got, const Matrix& want, float tolerance) {
  REQUIRE(got.rows() == want.rows());
  REQUIRE(got.cols() == want.cols());
  for (std::int64_t i = 0; i < got.size(); ++i)
    REQUIRE(got.data()[i] == Approx(want.data()[i]).epsilon(tolerance).margin(tolerance));
}

TEST_CASE("cuSPARSE SpMM equals the CPU kernel, and ALG2 repeats bit for bit", "[gpu][spmm]") {
  if (no_device()) return;
  gpu::Context context(0);
  kg::Libraries libraries(context);
  for (const LocalId rows : {1, 37, 1000})
    for (const std::int64_t width : {1, 3, 16, 33, 64}) {
      const Csr a = test::random_csr(rows, rows + 5, 0.05f, 7);  // some rows are empty
      const Matrix x = random_matrix(a.cols, width, 3), y0 = random_matrix(a.rows, width, 4);
      kg::DeviceCsr device_a(a.view(), context);
      kg::SpmmPlan plan(libraries, device_a, width);
      kg::DeviceMatrix dx = kg::DeviceMatrix::upload(x.view(), context);
      for (const float beta : {0.0f, 1.0f}) {
        kg::DeviceMatrix dy = kg::DeviceMatrix::upload(y0.view(), context);
        plan.run(dx.view(), dy.view(), beta);
        Matrix want = y0;
        kernels::spmm(a.view(), x.view(), want.view(), beta);
        const Matrix first = dy.download(context);
        require_close(first, want, 1e-5f);
        dy = kg::DeviceMatrix::upload(y0.view(), context);
        plan.run(dx.view(), dy.view(), beta);
        REQUIRE(dy.download(context).storage() == first.storage());
      }
    }
}

// The device multiplies stored values: a factored matrix (Csr::row_scale) and a pattern
// are given theirs, rows sorted or not, and multiply as the same values stored do.
TEST_CASE("a factored or pattern-only CSR on the device multiplies as its values stored",
          "[gpu][spmm]") {
  if (no_device()) return;
  gpu::Context context(0);
  kg::Libraries libraries(context);
  Csr factored = test::random_csr(300, 257, 0.05f, 9);
  factored.values.clear();
  factored.row_scale = test::random_scales(factored.rows, 1);
  factored.col_scale = test::random_scales(factored.cols, 2);
  Csr unsorted = factored;  // each row's entries reversed
  for (LocalId r = 0; r < unsorted.rows; ++r)
    std::reverse(unsorted.indices.begin() + unsorted.offsets[r],
                 unsorted.indices.begin() + unsorted.offsets[r + 1]);
  Csr pattern = factored;
  pattern.row_scale.clear();
  pattern.col_scale.clear();
  const Matrix x = random_matrix(factored.cols, 33, 3);
  const kg::DeviceMatrix dx = kg::DeviceMatrix::upload(x.view(), context);
  const auto product = [&](const Csr& a) {
    kg::DeviceCsr device_a(a.view(), context);
    kg::SpmmPlan plan(libraries, device_a, x.cols());
    kg::DeviceMatrix dy = kg::DeviceMatrix::upload(Matrix(a.rows, x.cols()).view(), context);
    plan.run(dx.view(), dy.view(), 0.0f);
    return dy.download(context);
  };
  for (const Csr* a : {&factored, &unsorted, &pattern}) {
    Csr stored = *a;
    store_values(stored);
    if (a == &pattern) stored.values.assign(static_cast<std::size_t>(a->nnz()), 1.0f);
    REQUIRE(product(*a).storage() == product(stored).storage());
  }
}

// Stored historical embeddings: x in bf16, widened as read, against the CPU kernel's sums
// in the same CSR order (the device's fused multiply-adds may round differently).
TEST_CASE("CUDA SpMM of bf16 rows matches the CPU's", "[gpu][spmm]") {
  if (no_device()) return;
  gpu::Context context(0);
  const auto backend = kernels::make_cuda_backend(context);
  const Csr a = test::random_csr(301, 257, 0.05f, 4);
  for (const std::int64_t w : {1, 33, 64}) {
    INFO("width " << w);
    const Matrix x = random_matrix(a.cols, w, 5);
    std::vector<std::uint16_t> packed(static_cast<std::size_t>(x.size()));
    for (std::size_t i = 0; i < packed.size(); ++i)
      packed[i] = kernels::row_codec::to_bf16(x.data()[i]);
    Matrix want(a.rows, w, 1.0f);
    kernels::spmm(a.view(), Bf16RowsView{packed.data(), a.cols, w}, want.view(), 0.5f);
    const kernels::Buffer dx = kernels::to_backend<std::uint16_t>(*backend, packed);
    kernels::Tensor dy = kernels::to_backend(*backend, Matrix(a.rows, w, 1.0f).view());
    backend->sparse(a.view())->multiply_bf16(Bf16RowsView{dx.as<std::uint16_t>(), a.cols, w},
                                             dy.view(), 0.5f);
    require_close(kernels::to_host(*backend, dy), want, 1e-5f);
  }
}

TEST_CASE("SpMM with no entries: beta · y, 0 for beta = 0, as on the CPU", "[gpu][spmm]") {
  if (no_device()) return;
  gpu::Context context(0);
  const auto backend = kernels::make_cuda_backend(context);
  test::check_spmm_without_entries(*backend);
  test::check_sparse_features_without_entries(*backend);
}

TEST_CASE("CUDA backend: an epoch-like loop calls cudaMalloc in its first epoch only",
          "[gpu][memory]") {
  if (no_device()) return;
  gpu::Context context(0);
  const auto backend = kernels::make_cuda_backend(context);
  const Csr a = test::random_csr(1000, 1000, 0.01f, 3);
  auto sparse = backend->sparse(a.view());
  std::vector<std::int32_t> labels(1000);
  std::vector<std::uint8_t> mask(1000, 1);
  for (std::size_t r = 0; r < labels.size(); ++r) labels[r] = static_cast<std::int32_t>(r % 7);
  const kernels::Buffer dlabels = kernels::to_backend<std::int32_t>(*backend, labels);
  const kernels::Buffer dmask = kernels::to_backend<std::uint8_t>(*backend, mask);
  const kernels::Tensor x = kernels::to_backend(*backend, random_matrix(1000, 16, 1).view());
  const kernels::Tensor w = kernels::to_backend(*backend, random_matrix(16, 7, 2).view());
  kernels::Tensor h, logits, grad;
  const auto epoch = [&] {
    for (const std::int64_t rows : {1000, 937}) {  // chunks of two sizes: reshaped every step
      const ConstMatrixView chunk{x.data(), rows, 16, 16};
      kernels::shaped(*backend, h, rows, 16);
      kernels::shaped(*backend, logits, rows, 7);
      kernels::shaped(*backend, grad, rows, 7);
      backend->copy(chunk, h.view());
      backend->gemm(false, false, 1.0f, h.view(), w.view(), 0.0f, logits.view());
      backend->masked_log_softmax_nll(logits.view(), dlabels.as<std::int32_t>(),
                                      dmask.as<std::uint8_t>(), 1000.0, grad.view());
      backend->argmax_correct(logits.view(), dlabels.as<std::int32_t>(), dmask.as<std::uint8_t>());
    }
    kernels::shaped(*backend, h, 1000, 16);
    sparse->multiply(x.view(), h.view());
    backend->synchronize();
  };
  epoch();
  const std::int64_t first_epoch = gpu::device_allocations();
  for (int e = 0; e < 3; ++e) epoch();
  CHECK(gpu::device_allocations() == first_epoch);
  CHECK(context.pool().stats().reuses > 0);
}

TEST_CASE("cuBLAS GEMM equals OpenBLAS for every transpose", "[gpu][gemm]") {
  if (no_device()) return;
  gpu::Context context(0);
  kg::Libraries libraries(context);
  const std::int64_t m = 33, k = 17, n = 65;
  for (const bool ta : {false, true})
    for (const bool tb : {false, true}) {
      const Matrix a = random_matrix(ta ? k : m, ta ? m : k, 1);
      const Matrix b = random_matrix(tb ? n : k, tb ? k : n, 2);
      const Matrix c0 = random_matrix(m, n, 5);
      Matrix want = c0;
      kernels::gemm(ta, tb, 0.5f, a.view(), b.view(), 2.0f, want.view());
      const kg::DeviceMatrix da = kg::DeviceMatrix::upload(a.view(), context);
      const kg::DeviceMatrix db = kg::DeviceMatrix::upload(b.view(), context);
      kg::DeviceMatrix dc = kg::DeviceMatrix::upload(c0.view(), context);
      kg::gemm(libraries, ta, tb, 0.5f, da.view(), db.view(), 2.0f, dc.view());
      require_close(dc.download(context), want, 1e-5f);
    }
}

TEST_CASE("ReLU, bias and dropout on the GPU equal the CPU bit for bit", "[gpu][elementwise]") {
  if (no_device()) return;
  gpu::Context context(0);
  const std::int64_t rows = 301, cols = 33;
  const Matrix x = random_matrix(rows, cols, 9), g = random_matrix(rows, cols, 10);
  std::vector<float> bias(cols);
  for (std::int64_t c = 0; c < cols; ++c) bias[c] = 0.1f * static_cast<float>(c);
  std::vector<GlobalId> ids(rows);
  for (std::int64_t r = 0; r < rows; ++r) ids[r] = 7 * r + 3;
  kg::DeviceMatrix dx = kg::DeviceMatrix::upload(x.view(), context);
  const kg::DeviceMatrix dg = kg::DeviceMatrix::upload(g.view(), context);
  kg::DeviceMatrix out(rows, cols);
  const gpu::DeviceBuffer dbias = gpu::to_device<float>(bias, context);
  const gpu::DeviceBuffer dids = gpu::to_device<GlobalId>(ids, context);

  Matrix want(rows, cols);
  kernels::relu_forward(x.view(), want.view());
  kg::relu_forward(context, dx.view(), out.view());
  REQUIRE(out.download(context).storage() == want.storage());
  kernels::relu_backward(x.view(), g.view(), want.view());
  kg::relu_backward(context, dx.view(), dg.view(), out.view());
  REQUIRE(out.download(context).storage() == want.storage());

  want = x;
  kernels::add_bias_rows(want.view(), bias);
  kernels::dropout(want.view(), ids, 0.4f, 11, 2, 1);
  kg::add_bias_rows(context, dx.view(), static_cast<const float*>(dbias.data()));
  kg::dropout(context, dx.view(), static_cast<const GlobalId*>(dids.data()), 0.4f, 11, 2, 1);
  REQUIRE(dx.download(context).storage() == want.storage());
}

// The wire formats of halo and stage rows: the same bytes on either device, and the same
// rows decoded, at widths around a warp, listed or not, with a NaN row.
TEST_CASE("row codecs on the GPU encode and decode as the CPU does, byte for byte",
          "[gpu][codec]") {
  if (no_device()) return;
  gpu::Context context(0);
  const std::unique_ptr<kernels::Backend> cuda = kernels::make_cuda_backend(context);
  for (const RowCodec codec : {RowCodec::kFloat32, RowCodec::kBf16, RowCodec::kInt8})
    for (const std::int64_t cols : {1, 5, 31, 32, 33, 64, 130}) {
      INFO(row_codec_name(codec) << ", " << cols << " columns");
      Matrix x = random_matrix(37, cols, static_cast<std::uint64_t>(cols));
      x.at(4, 0) = std::nanf("");
      const std::vector<LocalId> list{36, 0, 4, 17, 5};
      const auto n = static_cast<std::int64_t>(list.size());
      const auto bytes = static_cast<std::size_t>(n * row_codec_bytes(codec, cols));
      std::vector<std::byte> want(bytes), got(bytes);
      kernels::encode_rows(x.view(), list.data(), n, codec, 99, want.data());
      const kernels::Tensor dx = kernels::to_backend(*cuda, x.view());
      const kernels::Buffer dlist = kernels::to_backend<LocalId>(*cuda, list);
      kernels::Buffer packed(*cuda, bytes);
      cuda->encode_rows(dx.view(), dlist.as<LocalId>(), n, codec, 99, packed.data());
      cuda->download(got.data(), packed.data(), bytes);
      REQUIRE(got == want);
      Matrix back = x;
      kernels::decode_rows(want.data(), codec, list.data(), n, back.view(), true);
      kernels::Tensor dback = kernels::to_backend(*cuda, x.view());
      cuda->decode_rows(packed.data(), codec, dlist.as<LocalId>(), n, dback.view(), true);
      const Matrix gpu_back = kernels::to_host(*cuda, dback);
      for (std::int64_t i = 0; i < back.size(); ++i) {
        const float a = gpu_back.data()[i], b = back.data()[i];
        REQUIRE((a == b || (std::isnan(a) && std::isnan(b))));
      }
    }
}

TEST_CASE("masked softmax NLL and Adam on the GPU match the CPU", "[gpu][loss][adam]") {
  if (no_device()) return;
  gpu::Context context(0);
  const std::int64_t rows = 257, classes = 7;
  const Matrix logits = random_matrix(rows, classes, 12);
  std::vector<std::int32_t> labels(rows);
  std::vector<std::uint8_t> mask(rows);
  for (std::int64_t r = 0; r < rows; ++r) {
    labels[r] = static_cast<std::int32_t>(r % classes);
    mask[r] = r % 3 != 0;
  }
  Matrix want_grad(rows, classes);
  const double want =
      kernels::masked_log_softmax_nll(logits.view(), labels, mask, 171.0, want_grad.view());
  const kg::DeviceMatrix dl = kg::DeviceMatrix::upload(logits.view(), context);
  kg::DeviceMatrix grad(rows, classes);
  const gpu::DeviceBuffer dlabels = gpu::to_device<std::int32_t>(labels, context);
  const gpu::DeviceBuffer dmask = gpu::to_device<std::uint8_t>(mask, context);
  const double got = kg::masked_log_softmax_nll(
      context, dl.view(), static_cast<const std::int32_t*>(dlabels.data()),
      static_cast<const std::uint8_t*>(dmask.data()), 171.0, grad.view());
  CHECK(got == Approx(want).epsilon(1e-12));
  require_close(grad.download(context), want_grad, 1e-6f);

  const Matrix p0 = random_matrix(1, 1001, 13), gr = random_matrix(1, 1001, 14);
  Matrix p = p0, m(1, 1001), v(1, 1001);
  kg::DeviceMatrix dp = kg::DeviceMatrix::upload(p0.view(), context), dm(1, 1001), dv(1, 1001);
  const kg::DeviceMatrix dgr = kg::DeviceMatrix::upload(gr.view(), context);
  dm = kg::DeviceMatrix::upload(m.view(), context);
  dv = kg::DeviceMatrix::upload(v.view(), context);
  const kernels::AdamConfig config{0.01f, 0.9f, 0.999f, 1e-8f, 5e-4f};
  for (std::int64_t step = 1; step <= 3; ++step) {
    kernels::adam_step(p.storage(), gr.storage(), m.storage(), v.storage(), config, step);
    kg::adam_step(context, dp.view().data, dgr.view().data, dm.view().data, dv.view().data, 1001,
                  config, step);
  }
  require_close(dp.download(context), p, 1e-6f);
}

}  // namespace
}  // namespace strata
