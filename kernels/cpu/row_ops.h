// One row of the elementwise kernels, and their shape check: the whole-matrix calls
// (elementwise.cpp) and the fused layer passes (fused_layer.cpp) share them, so both round alike.
#pragma once

#include <bit>
#include <cstdint>

#include "strata/core/error.h"
#include "strata/core/matrix.h"

namespace strata::kernels {

inline void check_same_shape(ConstMatrixView a, ConstMatrixView b, const char* what) {
  STRATA_CHECK(a.rows == b.rows && a.cols == b.cols, what, ": shapes ", a.rows, "x", a.cols, " vs ",
               b.rows, "x", b.cols);
}

}  // namespace strata::kernels

namespace strata::kernels::rows {

inline void relu(const float* src, float* dst, std::int64_t cols) {
  for (std::int64_t c = 0; c < cols; ++c) dst[c] = src[c] > 0.0f ? src[c] : 0.0f;
}

// A mask, not a branch: which activations are positive is data, not predictable.
inline void relu_backward(const float* act, const float* g, float* dst, std::int64_t cols) {
  for (std::int64_t c = 0; c < cols; ++c)
    dst[c] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(g[c]) &
                                  (0u - static_cast<std::uint32_t>(act[c] > 0.0f)));
}

// dst = beta dst + alpha src.
inline void mix(float alpha, const float* src, float beta, float* dst, std::int64_t cols) {
  for (std::int64_t c = 0; c < cols; ++c) dst[c] = dst[c] * beta + alpha * src[c];
}

// dst += alpha src, then src *= beta.
inline void axpy_scale(float alpha, float* src, float* dst, float beta, std::int64_t cols) {
  for (std::int64_t c = 0; c < cols; ++c) {
    dst[c] += alpha * src[c];
    src[c] *= beta;
  }
}

}  // namespace strata::kernels::rows
