// The CUDA backend's attention and ELU operations against the CPU backend's at awkward
// sizes (3 heads of width 5, strided rows, empty rows, a block that starts mid-graph),
// with attention dropout. Skips with a message when no CUDA device answers.
#include <catch2/catch.hpp>
#include <vector>

#include "gpu_test_util.h"
#include "strata/core/device.h"
#include "strata/kernels/backend.h"
#include "strata/layers/block_entries.h"
#include "test_util.h"

namespace strata {
namespace {

constexpr int kHeads = 3, kWidth = 5, kCols = kHeads * kWidth;

// One backend's results: alpha, the aggregation, d z, d s_dst, d H, d s_src.
std::vector<std::vector<float>> attention_on(const kernels::Backend& b, const Csr& a,
                                             const Block& rows) {
  std::vector<GlobalId> ids(static_cast<std::size_t>(a.cols));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<GlobalId>(9 * i + 2);
  const kernels::Buffer id_buffer = kernels::to_backend<GlobalId>(b, ids);
  const BlockEntries entries(b, a, rows, id_buffer.as<GlobalId>() + rows.begin,
                             id_buffer.as<GlobalId>());
  const kernels::EdgeBlock& g = entries.edges();
  const kernels::AttentionDropout dropout{0.3f, 4, 2, 1};
  const auto upload = [&](std::int64_t r, std::int64_t c, std::uint64_t seed) {
    return kernels::to_backend(b, test::random_matrix(r, c, seed).view());
  };
  // P = [H | s_src] as a layer keeps it: H and s_src strided views of one matrix.
  kernels::Tensor p = upload(a.cols, kCols + kHeads, 1), s_dst = upload(rows.size(), kHeads, 2),
                  grad_out = upload(rows.size(), kCols, 3);
  const MatrixView h{p.data(), a.cols, kCols, kCols + kHeads};
  const MatrixView s_src{p.data() + kCols, a.cols, kHeads, kCols + kHeads};
  kernels::Tensor alpha(b, g.entries, kHeads), out(b, rows.size(), kCols),
      grad_z(b, g.entries, kHeads), grad_dst(b, rows.size(), kHeads),
      grad_p = upload(a.cols, kCols + kHeads, 4);
  b.attention_softmax(g, kHeads, s_dst.view(), s_src, 0.2f, alpha.data());
  b.attention_aggregate(g, kHeads, alpha.data(), dropout, h, out.view());
  b.attention_backward(g, kHeads, alpha.data(), dropout, s_dst.view(), s_src, 0.2f, grad_out.view(),
                       h, grad_z.data(), grad_dst.view());
  b.attention_scatter(g, kHeads, alpha.data(), dropout, grad_out.view(), grad_z.data(),
                      {grad_p.data(), a.cols, kCols, kCols + kHeads},
                      {grad_p.data() + kCols, a.cols, kHeads, kCols + kHeads});
  b.elu_forward(out.view(), out.view());
  b.elu_backward(out.view(), grad_out.view(), grad_out.view());
  std::vector<std::vector<float>> results;
  for (const kernels::Tensor* t : {&alpha, &out, &grad_z, &grad_dst, &grad_p, &grad_out})
    results.push_back(kernels::to_host(b, *t).storage());
  return results;
}

TEST_CASE("attention and ELU on the CUDA backend equal the CPU backend's", "[gpu][attention]") {
  if (test::no_device()) return;
  gpu::Context context(0);
  const auto gpu = kernels::make_cuda_backend(context);
  const auto cpu = kernels::make_cpu_backend();
  const Csr a = test::random_csr(41, 57, 0.1f, 5);  // some rows are empty
  for (const Block rows : {Block{0, 41, -1}, Block{7, 30, 1}}) {
    INFO("rows " << rows.begin << " to " << rows.end);
    const auto want = attention_on(*cpu, a, rows), got = attention_on(*gpu, a, rows);
    for (std::size_t t = 0; t < want.size(); ++t) {
      INFO("result " << t);
      REQUIRE(got[t].size() == want[t].size());
      for (std::size_t i = 0; i < got[t].size(); ++i)
        REQUIRE(got[t][i] == Approx(want[t][i]).epsilon(1e-5).margin(1e-5));
    }
  }
}

}  // namespace
}  // namespace strata
