// Launch geometry shared by our CUDA kernels: 256 threads a block, grid-stride loops, so
// a grid capped at 65535 · 16 blocks covers any size.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace strata::kernels::cuda {

constexpr int kThreads = 256;

inline unsigned blocks_for(std::int64_t n) {
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 16 ? (blocks > 0 ? blocks : 1) : 65535 * 16);
}

inline cudaStream_t as_stream(void* stream) {
  return static_cast<cudaStream_t>(stream);
}

}  // namespace strata::kernels::cuda
