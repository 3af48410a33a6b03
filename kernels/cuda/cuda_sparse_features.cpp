// X and Xᵀ on the device as cuSPARSE CSR matrices whose values dropout rewrites in place:
// X's from the raw copy under the mask (one thread per entry, the dense kernel's hash),
// then Xᵀ's gathered from X's through the transpose's source map.
#include "cuda_sparse_features.h"

#include <cuda_runtime.h>

#include <vector>

#include "cpu/dropout_keys.h"
#include "launch.h"
#include "plans_by_width.h"
#include "strata/core/cuda_check.h"
#include "strata/kernels/sparse_features.h"

namespace strata::kernels {
namespace {

using gpu::DeviceBuffer;

template <typename T>
const T* as(const DeviceBuffer& b) {
  return static_cast<const T*>(b.data());
}

// The row and the column of each of x's entries, in entry order.
std::vector<std::int32_t> entry_rows(CsrView x) {
  std::vector<std::int32_t> rows(static_cast<std::size_t>(x.nnz()));
  for (LocalId r = 0; r < x.rows; ++r)
    for (EdgeOffset k = x.offsets[r]; k < x.offsets[r + 1]; ++k) rows[k] = r;
  return rows;
}

class CudaSparseFeatures : public SparseFeatureMatrix {
 public:
  CudaSparseFeatures(CsrView x, const gpu::Libraries& libraries, bool deterministic)
      : libraries_(libraries),
        context_(libraries.context()),
        deterministic_(deterministic),
        x_(x, context_),
        transposed_(transposed_pattern(x).view(), context_),
        raw_(strata::gpu::to_device<float>(std::span(x.values, x.nnz()), context_)),
        rows_(strata::gpu::to_device<std::int32_t>(entry_rows(x), context_)),
        cols_(strata::gpu::to_device<std::int32_t>(std::span(x.indices, x.nnz()), context_)),
        source_(strata::gpu::to_device<std::int64_t>(source_host_, context_)) {
    reset();
  }

  LocalId rows() const override { return x_.rows(); }
  LocalId cols() const override { return x_.cols(); }

  void reset() override {
    if (x_.nnz() > 0)
      STRATA_CUDA_CHECK(
          cudaMemcpyAsync(x_.values(), raw_.data(), bytes(), cudaMemcpyDeviceToDevice, stream()));
    sync_transposed();
  }

  void dropout(const GlobalId* row_ids, float p, std::uint64_t seed, std::int64_t epoch,
               std::int32_t layer) override {
    STRATA_CHECK(p >= 0.0f && p < 1.0f, "sparse dropout: p = ", p);
    if (p == 0.0f) return reset();
    const std::uint64_t base =
        hash_key(seed, static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(layer));
    cuda::launch_dropout_entries(as<float>(raw_), x_.values(), as<std::int32_t>(rows_),
                                 as<std::int32_t>(cols_), x_.nnz(), row_ids, base,
                                 drop_threshold(p), 1.0f / (1.0f - p), context_.stream());
    STRATA_CUDA_CHECK(cudaGetLastError());
    sync_transposed();
  }

  void multiply(ConstMatrixView w, MatrixView y, float beta) override {
    plan(x_, x_plans_, w.cols).run(device(w), device(y), beta);
  }
  void multiply_transposed(ConstMatrixView d, MatrixView g, float beta) override {
    plan(transposed_, transposed_plans_, d.cols).run(device(d), device(g), beta);
  }

  void accumulate_transposed(ConstMatrixView d, GradientSums sums) override {
    multiply_transposed(d, {static_cast<float*>(sums.data), sums.rows, sums.cols, sums.cols}, 1.0f);
  }

  void to_dense(MatrixView out) override {
    STRATA_CHECK(out.rows == rows() && out.cols == cols(), "sparse to_dense: out is ", out.rows,
                 "x", out.cols, ", X is ", rows(), "x", cols());
    if (out.rows == 0 || out.cols == 0) return;
    const std::size_t pitch = static_cast<std::size_t>(out.stride) * sizeof(float);
    STRATA_CUDA_CHECK(cudaMemset2DAsync(out.data, pitch, 0,
                                        static_cast<std::size_t>(out.cols) * sizeof(float),
                                        static_cast<std::size_t>(out.rows), stream()));
    cuda::launch_scatter_entries(x_.values(), as<std::int32_t>(rows_), as<std::int32_t>(cols_),
                                 x_.nnz(), out.data, out.stride, context_.stream());
    STRATA_CUDA_CHECK(cudaGetLastError());
  }

 private:
  using Plans = cuda::PlansByWidth<gpu::SpmmPlan>;

  Csr transposed_pattern(CsrView x) { return transpose_with_source(x, source_host_); }
  cudaStream_t stream() const { return static_cast<cudaStream_t>(context_.stream()); }
  std::size_t bytes() const { return static_cast<std::size_t>(x_.nnz()) * sizeof(float); }
  static gpu::DeviceView device(MatrixView v) { return {v.data, v.rows, v.cols, v.stride}; }
  static gpu::DeviceConstView device(ConstMatrixView v) {
    return {v.data, v.rows, v.cols, v.stride};
  }

  gpu::SpmmPlan& plan(const gpu::DeviceCsr& a, Plans& plans, std::int64_t width) {
    return plans.get(width, [&] {
      return std::make_unique<gpu::SpmmPlan>(libraries_, a, width, deterministic_);
    });
  }

  void sync_transposed() {
    cuda::launch_gather_values(x_.values(), as<std::int64_t>(source_), x_.nnz(),
                               transposed_.values(), context_.stream());
    STRATA_CUDA_CHECK(cudaGetLastError());
  }

  const gpu::Libraries& libraries_;
  const gpu::Context& context_;
  bool deterministic_;
  std::vector<EdgeOffset> source_host_;  // filled while transposed_ is built
  gpu::DeviceCsr x_, transposed_;
  DeviceBuffer raw_, rows_, cols_, source_;
  Plans x_plans_, transposed_plans_;
};

}  // namespace

std::unique_ptr<SparseFeatureMatrix> make_cuda_sparse_features(CsrView x,
                                                               const gpu::Libraries& libraries,
                                                               bool deterministic_spmm) {
  STRATA_CHECK(x.values != nullptr || x.nnz() == 0, "sparse features without values");
  return std::make_unique<CudaSparseFeatures>(x, libraries, deterministic_spmm);
}

}  // namespace strata::kernels
