// y = a · x + beta · y with x's rows in bf16 (stored historical embeddings): a thread per
// output value sums its row's entries in CSR order, widening each x value to fp32 as it
// reads it. Neighbouring threads read neighbouring columns of the same x row.
#include <cuda_runtime.h>

#include <cstdint>

#include "grid.cuh"
#include "launch.h"

namespace strata::kernels::cuda {
namespace {

__device__ float widened(std::uint16_t h) {
  return __uint_as_float(static_cast<std::uint32_t>(h) << 16);
}

template <typename Offset>
__global__ void spmm_bf16_kernel(const Offset* offsets, const Offset* indices, const float* values,
                                 std::int64_t rows, const std::uint16_t* x, std::int64_t width,
                                 float* y, std::int64_t y_stride, float beta) {
  const std::int64_t n = rows * width;
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < n;
       k += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = k / width, c = k % width;
    float* out = y + r * y_stride + c;
    float sum = beta == 0.0f ? 0.0f : beta * *out;
    for (Offset e = offsets[r]; e < offsets[r + 1]; ++e)
      sum += values[e] * widened(x[static_cast<std::int64_t>(indices[e]) * width + c]);
    *out = sum;
  }
}

}  // namespace

void launch_spmm_bf16(const void* offsets, const void* indices, bool wide, const float* values,
                      std::int64_t rows, const std::uint16_t* x, std::int64_t width, float* y,
                      std::int64_t y_stride, float beta, void* stream) {
  const unsigned blocks = blocks_for(rows * width);
  if (wide)
    spmm_bf16_kernel<<<blocks, kThreads, 0, as_stream(stream)>>>(
        static_cast<const std::int64_t*>(offsets), static_cast<const std::int64_t*>(indices),
        values, rows, x, width, y, y_stride, beta);
  else
    spmm_bf16_kernel<<<blocks, kThreads, 0, as_stream(stream)>>>(
        static_cast<const std::int32_t*>(offsets), static_cast<const std::int32_t*>(indices),
        values, rows, x, width, y, y_stride, beta);
}

}  // namespace strata::kernels::cuda
