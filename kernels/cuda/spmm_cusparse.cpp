// SpMM through cusparseSpMM: the CSR copy on the device, and a plan holding the sparse
// and dense descriptors and the workspace for one (graph, width).
#include <cuda_runtime.h>

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "launch.h"
#include "library_check.h"
#include "strata/core/cuda_check.h"
#include "strata/core/error.h"
#include "strata/kernels/gpu.h"

namespace strata::kernels::gpu {
namespace {

template <typename To, typename From>
DeviceBuffer converted(const From* data, std::size_t n, const Context& context) {
  std::vector<To> host(data, data + n);
  return strata::gpu::to_device<To>(host, context);
}

// a's entries with each row's columns ascending, as cuSPARSE's CSR wants them: a row
// layout may keep a row's entries in the order that reproduces the CPU's sums
// (interior_first in training/row_layout.h).
struct SortedRows {
  std::vector<LocalId> indices;
  std::vector<float> values;
};

bool rows_sorted(CsrView a) {
  for (LocalId r = 0; r < a.rows; ++r)
    if (!std::is_sorted(a.indices + a.offsets[r], a.indices + a.offsets[r + 1])) return false;
  return true;
}

SortedRows sorted_rows(CsrView a) {
  SortedRows out{std::vector<LocalId>(a.indices, a.indices + a.nnz()), {}};
  out.values = entry_values(a);
  std::vector<std::pair<LocalId, float>> row;
  for (LocalId r = 0; r < a.rows; ++r) {
    const auto first = static_cast<std::size_t>(a.offsets[r]);
    const auto last = static_cast<std::size_t>(a.offsets[r + 1]);
    row.clear();
    for (std::size_t e = first; e < last; ++e) row.emplace_back(out.indices[e], out.values[e]);
    std::sort(row.begin(), row.end());
    for (std::size_t e = first; e < last; ++e)
      std::tie(out.indices[e], out.values[e]) = row[e - first];
  }
  return out;
}

}  // namespace

// cuSPARSE multiplies stored values: a pattern-only or factored view gets them (one
// rounding each, the CPU kernels' products) in a host copy that goes once uploaded.
DeviceCsr::DeviceCsr(CsrView a, const Context& context)
    : rows_(a.rows), cols_(a.cols), nnz_(a.nnz()), wide_(a.nnz() > 0x7FFFFFFF) {
  STRATA_CHECK(a.offsets[0] == 0, "a device CSR starts at offset 0, not ", a.offsets[0]);
  SortedRows sorted;
  std::vector<float> stored;
  if (!rows_sorted(a)) {
    sorted = sorted_rows(a);
    a.indices = sorted.indices.data();
    a.values = sorted.values.data();
  } else if (a.values == nullptr) {
    stored = entry_values(a);
    a.values = stored.data();
  }
  const auto rows1 = static_cast<std::size_t>(a.rows) + 1, nnz = static_cast<std::size_t>(nnz_);
  offsets_ = wide_ ? converted<std::int64_t>(a.offsets, rows1, context)
                   : converted<std::int32_t>(a.offsets, rows1, context);
  indices_ = wide_ ? converted<std::int64_t>(a.indices, nnz, context)
                   : converted<std::int32_t>(a.indices, nnz, context);
  values_ = converted<float>(a.values, nnz, context);
}

struct SpmmPlan::Descriptors {
  cusparseSpMatDescr_t a = nullptr;
  cusparseDnMatDescr_t x = nullptr, y = nullptr;
  cusparseSpMMAlg_t algorithm = CUSPARSE_SPMM_ALG_DEFAULT;
  DeviceBuffer workspace;
  ~Descriptors() {
    if (a) cusparseDestroySpMat(a);
    if (x) cusparseDestroyDnMat(x);
    if (y) cusparseDestroyDnMat(y);
  }
};

SpmmPlan::SpmmPlan(const Libraries& libraries, const DeviceCsr& a, std::int64_t width,
                   bool deterministic)
    : libraries_(libraries), a_(a), width_(width) {
  STRATA_CHECK(width > 0, "SpmmPlan: width ", width);
  // Without entries a has no index or value array to hand cuSPARSE: run() scales y itself.
  if (a.nnz() == 0) return;
  descriptors_ = std::make_unique<Descriptors>();
  Descriptors& d = *descriptors_;
  const cusparseIndexType_t index = a.wide() ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  STRATA_CUSPARSE_CHECK(
      cusparseCreateCsr(&d.a, a.rows(), a.cols(), a.nnz(), const_cast<void*>(a.offsets()),
                        const_cast<void*>(a.indices()), const_cast<float*>(a.values()), index,
                        index, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  // Placeholder data pointers: run() sets the real ones before every call.
  STRATA_CUSPARSE_CHECK(cusparseCreateDnMat(&d.x, a.cols(), width, width,
                                            const_cast<float*>(a.values()), CUDA_R_32F,
                                            CUSPARSE_ORDER_ROW));
  STRATA_CUSPARSE_CHECK(cusparseCreateDnMat(&d.y, a.rows(), width, width,
                                            const_cast<float*>(a.values()), CUDA_R_32F,
                                            CUSPARSE_ORDER_ROW));
  d.algorithm = deterministic ? CUSPARSE_SPMM_CSR_ALG2 : CUSPARSE_SPMM_ALG_DEFAULT;
  const float alpha = 1.0f, beta = 0.0f;
  std::size_t bytes = 0;
  STRATA_CUSPARSE_CHECK(cusparseSpMM_bufferSize(static_cast<cusparseHandle_t>(libraries.cusparse()),
                                                CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.a, d.x,
                                                &beta, d.y, CUDA_R_32F, d.algorithm, &bytes));
  d.workspace = DeviceBuffer(bytes, libraries.context());
}

SpmmPlan::~SpmmPlan() = default;

// y = beta · y, and 0 for beta = 0 whatever y held, as the CPU kernel leaves it.
void SpmmPlan::scale_without_entries(DeviceView y, float beta) const {
  const auto stream = static_cast<cudaStream_t>(libraries_.context().stream());
  if (beta == 0.0f) {
    const auto bytes = static_cast<std::size_t>(y.rows * y.stride) * sizeof(float);
    STRATA_CUDA_CHECK(cudaMemsetAsync(y.data, 0, bytes, stream));
  } else if (beta != 1.0f) {
    cuda::launch_scale(y.data, y.stride, y.rows, y.cols, beta, stream);
    STRATA_CUDA_CHECK(cudaGetLastError());
  }
}

void SpmmPlan::run(DeviceConstView x, DeviceView y, float beta) {
  STRATA_CHECK(x.rows == a_.cols() && y.rows == a_.rows() && x.cols == width_ && y.cols == width_,
               "SpmmPlan::run: ", a_.rows(), "x", a_.cols(), " plan of width ", width_, " given x ",
               x.rows, "x", x.cols, ", y ", y.rows, "x", y.cols);
  STRATA_CHECK(x.stride == width_ && y.stride == width_, "SpmmPlan::run: strided views");
  if (!descriptors_) return scale_without_entries(y, beta);
  Descriptors& d = *descriptors_;
  STRATA_CUSPARSE_CHECK(cusparseDnMatSetValues(d.x, const_cast<float*>(x.data)));
  STRATA_CUSPARSE_CHECK(cusparseDnMatSetValues(d.y, y.data));
  const float alpha = 1.0f;
  STRATA_CUSPARSE_CHECK(cusparseSpMM(static_cast<cusparseHandle_t>(libraries_.cusparse()),
                                     CUSPARSE_OPERATION_NON_TRANSPOSE,
                                     CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.a, d.x, &beta, d.y,
                                     CUDA_R_32F, d.algorithm, d.workspace.data()));
}

}  // namespace strata::kernels::gpu
