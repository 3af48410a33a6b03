// STRATA_CUSPARSE_CHECK and STRATA_CUBLAS_CHECK: the one check macro for each library.
// A failure throws strata::Error naming the call, the library's status string and
// file:line; an allocation failure says "out of GPU memory".
#pragma once
#include <cublas_v2.h>
#include <cusparse.h>

namespace strata::kernels::cuda {

void cusparse_check(cusparseStatus_t status, const char* operation, const char* file, int line);
void cublas_check(cublasStatus_t status, const char* operation, const char* file, int line);

}  // namespace strata::kernels::cuda

#define STRATA_CUSPARSE_CHECK(call) \
  ::strata::kernels::cuda::cusparse_check((call), #call, __FILE__, __LINE__)
#define STRATA_CUBLAS_CHECK(call) \
  ::strata::kernels::cuda::cublas_check((call), #call, __FILE__, __LINE__)
