// The cuBLAS and cuSPARSE handles of a context, and the libraries' check functions.
#include "library_check.h"
#include "strata/core/error.h"
#include "strata/kernels/gpu.h"

namespace strata::kernels::cuda {
namespace {

const char* cublas_status_name(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:
      return "cuBLAS error";
  }
}

}  // namespace

void cusparse_check(cusparseStatus_t status, const char* operation, const char* file, int line) {
  if (status == CUSPARSE_STATUS_SUCCESS) return;
  const char* what =
      status == CUSPARSE_STATUS_ALLOC_FAILED ? "out of GPU memory: " : "cuSPARSE error: ";
  throw_internal_error(file, line, what, operation, ": ", cusparseGetErrorName(status), " (",
                       cusparseGetErrorString(status), ")");
}

void cublas_check(cublasStatus_t status, const char* operation, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const char* what =
      status == CUBLAS_STATUS_ALLOC_FAILED ? "out of GPU memory: " : "cuBLAS error: ";
  throw_internal_error(file, line, what, operation, ": ", cublas_status_name(status));
}

}  // namespace strata::kernels::cuda

namespace strata::kernels::gpu {

Libraries::Libraries(const Context& context) : context_(context) {
  const auto stream = static_cast<cudaStream_t>(context.stream());
  cublasHandle_t blas = nullptr;
  STRATA_CUBLAS_CHECK(cublasCreate(&blas));
  cublas_ = blas;
  STRATA_CUBLAS_CHECK(cublasSetStream(blas, stream));
  // No tensor-core (TF32) rounding: GEMMs stay IEEE float, comparable with OpenBLAS.
  STRATA_CUBLAS_CHECK(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
  cusparseHandle_t sparse = nullptr;
  STRATA_CUSPARSE_CHECK(cusparseCreate(&sparse));
  cusparse_ = sparse;
  STRATA_CUSPARSE_CHECK(cusparseSetStream(sparse, stream));
}

Libraries::~Libraries() {
  if (cublas_) cublasDestroy(static_cast<cublasHandle_t>(cublas_));
  if (cusparse_) cusparseDestroy(static_cast<cusparseHandle_t>(cusparse_));
}

}  // namespace strata::kernels::gpu
