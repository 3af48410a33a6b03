// Row kernels: per-row argmax hits (accuracy), and the gather and scatter of listed rows
// (the halo exchange packs and unpacks with them).
#include <cuda_runtime.h>

#include <cstdint>

#include "grid.cuh"
#include "launch.h"

namespace strata::kernels::cuda {
namespace {

__global__ void argmax_rows_kernel(const float* logits, std::int64_t stride, std::int64_t rows,
                                   std::int64_t cols, const std::int32_t* labels,
                                   const std::uint8_t* mask, std::int32_t* correct) {
  for (std::int64_t r = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; r < rows;
       r += std::int64_t{gridDim.x} * blockDim.x) {
    const float* row = logits + r * stride;
    std::int64_t best = 0;
    for (std::int64_t c = 1; c < cols; ++c)
      if (row[c] > row[best]) best = c;
    correct[r] = mask[r] != 0 && cols > 0 && best == labels[r] ? 1 : 0;
  }
}

__global__ void gather_rows_kernel(const float* rows, std::int64_t stride, std::int64_t cols,
                                   const std::int32_t* list, std::int64_t n, float* packed) {
  const std::int64_t total = n * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x)
    packed[i] = rows[list[i / cols] * stride + i % cols];
}

// list holds no row twice, so no two threads write one element.
__global__ void scatter_rows_kernel(const float* packed, const std::int32_t* list, std::int64_t n,
                                    float* rows, std::int64_t stride, std::int64_t cols, bool add) {
  const std::int64_t total = n * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    float& dst = rows[list[i / cols] * stride + i % cols];
    dst = add ? dst + packed[i] : packed[i];
  }
}

}  // namespace

void launch_argmax_rows(const float* logits, std::int64_t stride, std::int64_t rows,
                        std::int64_t cols, const std::int32_t* labels, const std::uint8_t* mask,
                        std::int32_t* correct, void* stream) {
  if (rows == 0) return;
  argmax_rows_kernel<<<blocks_for(rows), kThreads, 0, as_stream(stream)>>>(
      logits, stride, rows, cols, labels, mask, correct);
}

void launch_gather_rows(const float* rows, std::int64_t stride, std::int64_t cols,
                        const std::int32_t* list, std::int64_t n, float* packed, void* stream) {
  if (n == 0 || cols == 0) return;
  gather_rows_kernel<<<blocks_for(n * cols), kThreads, 0, as_stream(stream)>>>(rows, stride, cols,
                                                                               list, n, packed);
}

void launch_scatter_rows(const float* packed, const std::int32_t* list, std::int64_t n, float* rows,
                         std::int64_t stride, std::int64_t cols, bool add, void* stream) {
  if (n == 0 || cols == 0) return;
  scatter_rows_kernel<<<blocks_for(n * cols), kThreads, 0, as_stream(stream)>>>(
      packed, list, n, rows, stride, cols, add);
}

}  // namespace strata::kernels::cuda
