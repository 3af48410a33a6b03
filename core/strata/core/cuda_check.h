// STRATA_CUDA_CHECK: the one check macro for CUDA runtime calls. A failure throws
// strata::Error naming the call, the CUDA error name and string, and file:line; an
// out-of-memory error says so (cudaErrorMemoryAllocation).
#pragma once

namespace strata {

// `code` is the call's cudaError_t; 0 (cudaSuccess) returns.
void cuda_check(int code, const char* operation, const char* file, int line);

}  // namespace strata

#define STRATA_CUDA_CHECK(call) \
  ::strata::cuda_check(static_cast<int>(call), #call, __FILE__, __LINE__)
