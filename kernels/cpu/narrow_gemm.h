// kernels::gemm's path for a narrow right-hand side (cpu/narrow_gemm.cpp says why).
#pragma once
#include <cstdint>

#include "strata/core/matrix.h"

namespace strata::kernels {

// Whether c (m x n) = a (m x k) op(b) takes the narrow path: many rows, and op(b) at most
// 16 columns or at most 16 rows (and small).
bool narrow_gemm_applies(std::int64_t m, std::int64_t k, std::int64_t n);
// c = a op(b), a not transposed; op(b) is k x n.
void narrow_gemm(ConstMatrixView a, ConstMatrixView b, bool trans_b, MatrixView c);

}  // namespace strata::kernels
