// Row-major GEMM through column-major cuBLAS: a row-major m x n matrix is its column-major
// transpose, so c = op(a) op(b) becomes cᵀ = op(b)ᵀ op(a)ᵀ with the operands swapped.
#include "library_check.h"
#include "strata/core/error.h"
#include "strata/kernels/gpu.h"

namespace strata::kernels::gpu {

void gemm(const Libraries& libraries, bool trans_a, bool trans_b, float alpha, DeviceConstView a,
          DeviceConstView b, float beta, DeviceView c) {
  const std::int64_t m = trans_a ? a.cols : a.rows, k = trans_a ? a.rows : a.cols;
  const std::int64_t n = trans_b ? b.rows : b.cols, kb = trans_b ? b.cols : b.rows;
  STRATA_CHECK(k == kb && c.rows == m && c.cols == n, "gpu::gemm: ", m, "x", k, " times ", kb, "x",
               n, " into ", c.rows, "x", c.cols);
  if (m == 0 || n == 0) return;
  const auto handle = static_cast<cublasHandle_t>(libraries.cublas());
  const auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
  const auto i32 = [](std::int64_t v) {
    STRATA_CHECK(v <= 0x7FFFFFFF, "gpu::gemm: dimension ", v, " exceeds cuBLAS's int");
    return static_cast<int>(v);
  };
  STRATA_CUBLAS_CHECK(cublasSgemm(handle, op(trans_b), op(trans_a), i32(n), i32(m), i32(k), &alpha,
                                  b.data, i32(b.stride), a.data, i32(a.stride), &beta, c.data,
                                  i32(c.stride)));
}

}  // namespace strata::kernels::gpu
