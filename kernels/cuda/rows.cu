// Row kernels: per-row argmax hits (accuracy), and the gather and scatter of a sparse
// matrix's values (row_codec.cu gathers and scatters listed rows).
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

__global__ void gather_values_kernel(const float* values, const std::int64_t* source,
                                     std::int64_t n, float* out) {
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < n;
       k += std::int64_t{gridDim.x} * blockDim.x)
    out[k] = values[source[k]];
}

// (rows[k], cols[k]) are distinct entries, so no two threads write one element.
__global__ void scatter_entries_kernel(const float* values, const std::int32_t* rows,
                                       const std::int32_t* cols, std::int64_t nnz, float* out,
                                       std::int64_t stride) {
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < nnz;
       k += std::int64_t{gridDim.x} * blockDim.x)
    out[rows[k] * stride + cols[k]] = values[k];
}

}  // namespace

void launch_gather_values(const float* values, const std::int64_t* source, std::int64_t n,
                          float* out, void* stream) {
  if (n == 0) return;
  gather_values_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(values, source, n, out);
}

void launch_scatter_entries(const float* values, const std::int32_t* rows, const std::int32_t* cols,
                            std::int64_t nnz, float* out, std::int64_t stride, void* stream) {
  if (nnz == 0) return;
  scatter_entries_kernel<<<blocks_for(nnz), kThreads, 0, as_stream(stream)>>>(values, rows, cols,
                                                                              nnz, out, stride);
}

void launch_argmax_rows(const float* logits, std::int64_t stride, std::int64_t rows,
                        std::int64_t cols, const std::int32_t* labels, const std::uint8_t* mask,
                        std::int32_t* correct, void* stream) {
  if (rows == 0) return;
  argmax_rows_kernel<<<blocks_for(rows), kThreads, 0, as_stream(stream)>>>(
      logits, stride, rows, cols, labels, mask, correct);
}

}  // namespace strata::kernels::cuda
