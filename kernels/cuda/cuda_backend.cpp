// The CUDA backend: device memory from the Context's pool and the kernels of gpu.h, every
// one queued on the Context's stream. Column sums run as a GEMM with a ones vector (cuBLAS
// reads all rows in parallel; a thread per column would be latency bound).
#include <cuda_runtime.h>

#include <vector>

#include "cuda_attention.h"
#include "cuda_sparse_features.h"
#include "launch.h"
#include "plans_by_width.h"
#include "strata/core/block_pool.h"
#include "strata/core/cuda_check.h"
#include "strata/kernels/backend.h"
#include "strata/kernels/gpu.h"

namespace strata::kernels {
namespace {

using gpu::DeviceConstView;
using gpu::DeviceView;

DeviceView device(MatrixView v) {
  return {v.data, v.rows, v.cols, v.stride};
}
DeviceConstView device(ConstMatrixView v) {
  return {v.data, v.rows, v.cols, v.stride};
}

MatrixView floats(GradientSums sums) {
  return {static_cast<float*>(sums.data), sums.rows, sums.cols, sums.cols};
}

cudaStream_t stream_of(const gpu::Context& context) {
  return static_cast<cudaStream_t>(context.stream());
}

class CudaSparse : public SparseMatrix {
 public:
  CudaSparse(CsrView a, const gpu::Libraries& libraries, const gpu::Context& context,
             bool deterministic)
      : libraries_(libraries),
        deterministic_(deterministic),
        stream_(context.stream()),
        csr_(a, context) {}
  LocalId rows() const override { return csr_.rows(); }
  LocalId cols() const override { return csr_.cols(); }
  void multiply(ConstMatrixView x, MatrixView y, float beta) override {
    if (x.cols == 0 || y.rows == 0) return;
    plans_
        .get(x.cols,
             [&] {
               return std::make_unique<gpu::SpmmPlan>(libraries_, csr_, x.cols, deterministic_);
             })
        .run(device(x), device(y), beta);
  }
  void multiply_bf16(Bf16RowsView x, MatrixView y, float beta) override {
    STRATA_CHECK(x.rows == csr_.cols() && y.rows == csr_.rows() && x.cols == y.cols,
                 "spmm of bf16 rows: x ", x.rows, " x ", x.cols, ", a ", csr_.rows(), " x ",
                 csr_.cols(), ", y ", y.rows, " x ", y.cols);
    if (x.cols == 0 || y.rows == 0) return;
    cuda::launch_spmm_bf16(csr_.offsets(), csr_.indices(), csr_.wide(), csr_.values(), y.rows,
                           x.data, x.cols, y.data, y.stride, beta, stream_);
    STRATA_CUDA_CHECK(cudaGetLastError());
  }

 private:
  const gpu::Libraries& libraries_;
  bool deterministic_;
  void* stream_;
  gpu::DeviceCsr csr_;
  cuda::PlansByWidth<gpu::SpmmPlan> plans_;
};

class CudaBackend : public Backend {
 public:
  CudaBackend(const gpu::Context& context, bool deterministic_spmm)
      : context_(context), libraries_(context), deterministic_spmm_(deterministic_spmm) {}
  const char* name() const override { return "cuda"; }

  // From the context's pool: every kernel runs on its stream, so a released block is
  // handed out again without waiting for the kernels that still read it.
  void* allocate(std::size_t bytes) const override { return context_.pool().allocate(bytes); }
  void release(void* data) const override { context_.pool().release(data); }
  void upload(void* dst, const void* host, std::size_t bytes) const override {
    strata::gpu::copy_to_device(dst, host, bytes, context_);
  }
  void download(void* host, const void* src, std::size_t bytes) const override {
    strata::gpu::copy_to_host(host, src, bytes, context_);
  }
  void zero(void* data, std::size_t bytes) const override {
    STRATA_CUDA_CHECK(cudaMemsetAsync(data, 0, bytes, stream_of(context_)));
  }
  void synchronize() const override { context_.synchronize(); }

  std::unique_ptr<SparseMatrix> sparse(CsrView a) const override {
    return std::make_unique<CudaSparse>(a, libraries_, context_, deterministic_spmm_);
  }
  std::unique_ptr<SparseFeatureMatrix> sparse_features(CsrView x) const override {
    return make_cuda_sparse_features(x, libraries_, deterministic_spmm_);
  }
  void gemm(bool trans_a, bool trans_b, float alpha, ConstMatrixView a, ConstMatrixView b,
            float beta, MatrixView c) const override {
    gpu::gemm(libraries_, trans_a, trans_b, alpha, device(a), device(b), beta, device(c));
  }
  void relu_forward(ConstMatrixView in, MatrixView out) const override {
    gpu::relu_forward(context_, device(in), device(out));
  }
  void relu_backward(ConstMatrixView out_or_in, ConstMatrixView grad_out,
                     MatrixView grad_in) const override {
    gpu::relu_backward(context_, device(out_or_in), device(grad_out), device(grad_in));
  }
  void add_bias_rows(MatrixView y, const float* bias) const override {
    gpu::add_bias_rows(context_, device(y), bias);
  }
  void elu_forward(ConstMatrixView in, MatrixView out) const override {
    cuda_attention::elu_forward(in, out, context_.stream());
  }
  void elu_backward(ConstMatrixView out, ConstMatrixView grad_out,
                    MatrixView grad_in) const override {
    cuda_attention::elu_backward(out, grad_out, grad_in, context_.stream());
  }
  void attention_softmax(const EdgeBlock& g, int heads, ConstMatrixView s_dst,
                         ConstMatrixView s_src, float slope, float* alpha) const override {
    cuda_attention::softmax(g, heads, s_dst, s_src, slope, alpha, context_.stream());
  }
  void attention_aggregate(const EdgeBlock& g, int heads, const float* alpha,
                           const AttentionDropout& dropout, ConstMatrixView h,
                           MatrixView out) const override {
    cuda_attention::aggregate(g, heads, alpha, dropout, h, out, context_.stream());
  }
  void attention_backward(const EdgeBlock& g, int heads, const float* alpha,
                          const AttentionDropout& dropout, ConstMatrixView s_dst,
                          ConstMatrixView s_src, float slope, ConstMatrixView grad_out,
                          ConstMatrixView h, float* grad_z, MatrixView grad_s_dst) const override {
    cuda_attention::backward(g, heads, alpha, dropout, s_dst, s_src, slope, grad_out, h, grad_z,
                             grad_s_dst, context_.stream());
  }
  void attention_scatter(const EdgeBlock& g, int heads, const float* alpha,
                         const AttentionDropout& dropout, ConstMatrixView grad_out,
                         const float* grad_z, MatrixView grad_h,
                         MatrixView grad_s_src) const override {
    cuda_attention::scatter(g, heads, alpha, dropout, grad_out, grad_z, grad_h, grad_s_src,
                            context_.stream());
  }
  void column_sums(ConstMatrixView x, float* out, bool accumulate) const override {
    if (x.rows == 0) {
      if (!accumulate) zero(out, static_cast<std::size_t>(x.cols) * sizeof(float));
      return;
    }
    const float* ones = ones_for(x.rows);
    gpu::gemm(libraries_, false, false, 1.0f, DeviceConstView(ones, 1, x.rows, x.rows), device(x),
              accumulate ? 1.0f : 0.0f, DeviceView{out, 1, x.cols, x.cols});
  }
  void copy(ConstMatrixView x, MatrixView y) const override {
    STRATA_CHECK(x.rows == y.rows && x.cols == y.cols, "cuda copy: shapes ", x.rows, "x", x.cols,
                 " vs ", y.rows, "x", y.cols);
    if (x.rows == 0 || x.cols == 0) return;
    STRATA_CUDA_CHECK(cudaMemcpy2DAsync(y.data, static_cast<std::size_t>(y.stride) * sizeof(float),
                                        x.data, static_cast<std::size_t>(x.stride) * sizeof(float),
                                        static_cast<std::size_t>(x.cols) * sizeof(float),
                                        static_cast<std::size_t>(x.rows), cudaMemcpyDeviceToDevice,
                                        stream_of(context_)));
  }
  void axpy(float alpha, ConstMatrixView x, MatrixView y) const override {
    STRATA_CHECK(x.rows == y.rows && x.cols == y.cols, "cuda axpy: shapes ", x.rows, "x", x.cols,
                 " vs ", y.rows, "x", y.cols);
    cuda::launch_axpy(alpha, x.data, x.stride, y.data, y.stride, x.rows, x.cols, context_.stream());
    STRATA_CUDA_CHECK(cudaGetLastError());
  }
  void scale(MatrixView x, float alpha) const override {
    cuda::launch_scale(x.data, x.stride, x.rows, x.cols, alpha, context_.stream());
    STRATA_CUDA_CHECK(cudaGetLastError());
  }
  void dropout(MatrixView x, const GlobalId* row_ids, float p, std::uint64_t seed,
               std::int64_t epoch, std::int32_t layer) const override {
    gpu::dropout(context_, device(x), row_ids, p, seed, epoch, layer);
  }
  void mix(float alpha, ConstMatrixView x, float beta, MatrixView y) const override {
    STRATA_CHECK(x.rows == y.rows && x.cols == y.cols, "cuda mix: shapes ", x.rows, "x", x.cols,
                 " vs ", y.rows, "x", y.cols);
    cuda::launch_mix(alpha, x.data, x.stride, beta, y.data, y.stride, x.rows, x.cols,
                     context_.stream());
    STRATA_CUDA_CHECK(cudaGetLastError());
  }
  void axpy_scale(float alpha, MatrixView x, MatrixView y, float beta) const override {
    STRATA_CHECK(x.rows == y.rows && x.cols == y.cols, "cuda axpy_scale: shapes ", x.rows, "x",
                 x.cols, " vs ", y.rows, "x", y.cols);
    cuda::launch_axpy_scale(alpha, x.data, x.stride, y.data, y.stride, beta, x.rows, x.cols,
                            context_.stream());
    STRATA_CUDA_CHECK(cudaGetLastError());
  }
  void dropout_copy(ConstMatrixView x, MatrixView y, const GlobalId* row_ids, float p,
                    std::uint64_t seed, std::int64_t epoch, std::int32_t layer) const override {
    gpu::dropout_copy(context_, device(x), device(y), row_ids, p, seed, epoch, layer);
  }
  // The calls in turn: on the GPU each is one pass at device bandwidth already.
  void mix_gemm_relu(float alpha, ConstMatrixView h0, float beta, MatrixView s, ConstMatrixView w,
                     MatrixView y, const DropInto& next) const override {
    mix(alpha, h0, beta, s);
    gemm(false, false, 1.0f, s, w, 0.0f, y);
    relu_forward(y, y);
    if (next.to.data == nullptr) return;
    if (next.p > 0.0f)
      dropout_copy(y, next.to, next.row_ids, next.p, next.seed, next.epoch, next.layer);
    else if (next.to.data != y.data)
      copy(y, next.to);
  }
  void relu_gemm_split(ConstMatrixView y, MatrixView grad_y, ConstMatrixView w, MatrixView grad_z,
                       float alpha, MatrixView grad_h0, float beta, const DropInto& drop,
                       const WeightGradient& weight) const override {
    if (drop.to.data != nullptr && drop.p > 0.0f)
      dropout(grad_y, drop.row_ids, drop.p, drop.seed, drop.epoch, drop.layer);
    relu_backward(y, grad_y, grad_y);
    gemm(false, true, 1.0f, grad_y, w, 0.0f, grad_z);
    axpy_scale(alpha, grad_z, grad_h0, beta);
    if (weight.sums.data != nullptr)
      gemm_tn_accumulate(weight.alpha, weight.a, grad_y, weight.sums);
  }
  double masked_log_softmax_nll(ConstMatrixView logits, const std::int32_t* labels,
                                const std::uint8_t* mask, double normalizer,
                                MatrixView grad) const override {
    return gpu::masked_log_softmax_nll(context_, device(logits), labels, mask, normalizer,
                                       device(grad));
  }
  std::int64_t argmax_correct(ConstMatrixView logits, const std::int32_t* labels,
                              const std::uint8_t* mask) const override;
  DType gradient_type() const override { return DType::kFloat32; }
  void gemm_tn_accumulate(float alpha, ConstMatrixView a, ConstMatrixView b,
                          GradientSums sums) const override {
    gemm(true, false, alpha, a, b, 1.0f, floats(sums));
  }
  void column_sums_accumulate(ConstMatrixView x, GradientSums sums) const override {
    column_sums(x, floats(sums).data, true);
  }
  void cast_gradients(const void* sums, float* out, std::int64_t n) const override {
    if (sums == out || n == 0) return;
    STRATA_CUDA_CHECK(cudaMemcpyAsync(out, sums, static_cast<std::size_t>(n) * sizeof(float),
                                      cudaMemcpyDeviceToDevice, stream_of(context_)));
  }
  void adam_step(float* param, const float* grad, float* m, float* v, std::int64_t n,
                 const AdamConfig& config, std::int64_t step) const override {
    gpu::adam_step(context_, param, grad, m, v, n, config, step);
  }
  void encode_rows(ConstMatrixView rows, const LocalId* list, std::int64_t n, RowCodec codec,
                   std::uint64_t key, void* packed) const override {
    cuda::launch_encode_rows(rows.data, rows.stride, rows.cols, list, n, static_cast<int>(codec),
                             key, packed, context_.stream());
    STRATA_CUDA_CHECK(cudaGetLastError());
  }
  void decode_rows(const void* packed, RowCodec codec, const LocalId* list, std::int64_t n,
                   MatrixView rows, bool add) const override {
    cuda::launch_decode_rows(packed, static_cast<int>(codec), list, n, rows.data, rows.stride,
                             rows.cols, add, context_.stream());
    STRATA_CUDA_CHECK(cudaGetLastError());
  }

 private:
  // A device vector of at least n ones, grown as needed (column sums read it).
  const float* ones_for(std::int64_t n) const {
    if (static_cast<std::int64_t>(ones_.size()) < n) {
      ones_.assign(static_cast<std::size_t>(n), 1.0f);
      ones_device_ = strata::gpu::to_device<float>(ones_, context_);
    }
    return static_cast<const float*>(ones_device_.data());
  }

  const gpu::Context& context_;
  gpu::Libraries libraries_;
  bool deterministic_spmm_;
  mutable std::vector<float> ones_;
  mutable gpu::DeviceBuffer ones_device_;
};

// Per-row hits on the device, then summed on the host (rows are at most millions).
std::int64_t CudaBackend::argmax_correct(ConstMatrixView logits, const std::int32_t* labels,
                                         const std::uint8_t* mask) const {
  const auto rows = static_cast<std::size_t>(logits.rows);
  if (rows == 0) return 0;
  gpu::DeviceBuffer hits(rows * sizeof(std::int32_t), context_);
  cuda::launch_argmax_rows(logits.data, logits.stride, logits.rows, logits.cols, labels, mask,
                           static_cast<std::int32_t*>(hits.data()), context_.stream());
  STRATA_CUDA_CHECK(cudaGetLastError());
  std::vector<std::int32_t> host(rows);
  hits.download(host.data(), rows * sizeof(std::int32_t), context_);
  std::int64_t correct = 0;
  for (const std::int32_t h : host) correct += h;
  return correct;
}

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const gpu::Context& context, bool deterministic_spmm) {
  return std::make_unique<CudaBackend>(context, deterministic_spmm);
}

}  // namespace strata::kernels
