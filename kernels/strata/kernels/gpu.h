// GPU twins of the kernel front end (kernels.h) over device memory: SpMM through
// cuSPARSE, GEMM through cuBLAS, our own CUDA kernels for the rest. Each runs on a
// gpu::Context's stream and is tested against its CPU twin (tests/gpu). A build without
// CUDA compiles these to stubs that throw "built without CUDA".
#pragma once
#include <cstdint>
#include <memory>

#include "strata/core/device.h"
#include "strata/core/types.h"
#include "strata/graph/csr.h"
#include "strata/kernels/kernels.h"

namespace strata::kernels::gpu {

using strata::gpu::Context;
using strata::gpu::DeviceBuffer;

// Row-major float matrices in device memory (views: they own nothing).
struct DeviceView {
  float* data = nullptr;
  std::int64_t rows = 0, cols = 0, stride = 0;
};
struct DeviceConstView {
  const float* data = nullptr;
  std::int64_t rows = 0, cols = 0, stride = 0;
  DeviceConstView() = default;
  DeviceConstView(const float* d, std::int64_t r, std::int64_t c, std::int64_t s)
      : data(d), rows(r), cols(c), stride(s) {}
  DeviceConstView(DeviceView v) : data(v.data), rows(v.rows), cols(v.cols), stride(v.stride) {}
};

// A rows x cols matrix in device memory, and copies to and from a host Matrix.
class DeviceMatrix {
 public:
  DeviceMatrix(std::int64_t rows, std::int64_t cols);
  static DeviceMatrix upload(ConstMatrixView host, const Context& context);
  Matrix download(const Context& context) const;

  DeviceView view() { return {static_cast<float*>(buffer_.data()), rows_, cols_, cols_}; }
  DeviceConstView view() const {
    return {static_cast<const float*>(buffer_.data()), rows_, cols_, cols_};
  }

 private:
  std::int64_t rows_, cols_;
  DeviceBuffer buffer_;
};

// The cuBLAS and cuSPARSE handles of one context, bound to its stream.
class Libraries {
 public:
  explicit Libraries(const Context& context);
  ~Libraries();
  Libraries(const Libraries&) = delete;
  Libraries& operator=(const Libraries&) = delete;
  const Context& context() const { return context_; }
  void* cublas() const { return cublas_; }
  void* cusparse() const { return cusparse_; }

 private:
  const Context& context_;
  void* cublas_ = nullptr;
  void* cusparse_ = nullptr;
};

// A CSR matrix copied to the device once. Indices are 32-bit while nnz fits, else 64-bit
// (cuSPARSE wants both index arrays of one width).
class DeviceCsr {
 public:
  DeviceCsr(CsrView a, const Context& context);
  LocalId rows() const { return rows_; }
  LocalId cols() const { return cols_; }
  EdgeOffset nnz() const { return nnz_; }
  bool wide() const { return wide_; }
  const void* offsets() const { return offsets_.data(); }
  const void* indices() const { return indices_.data(); }
  const float* values() const { return static_cast<const float*>(values_.data()); }
  // Written in place by sparse dropout; the SpMM plans read them at every run.
  float* values() { return static_cast<float*>(values_.data()); }

 private:
  LocalId rows_, cols_;
  EdgeOffset nnz_;
  bool wide_;
  DeviceBuffer offsets_, indices_, values_;
};

// y = a · x + beta · y (x and y row-major, `width` columns) through cusparseSpMM. The
// descriptors and the workspace are made once per (graph, width) and freed with the plan.
// deterministic: CUSPARSE_SPMM_CSR_ALG2 (the same bits every run; tests/gpu checks it)
// rather than the library's default choice. A matrix without entries never reaches
// cuSPARSE: y becomes beta · y (0 for beta = 0), as on the CPU.
class SpmmPlan {
 public:
  SpmmPlan(const Libraries& libraries, const DeviceCsr& a, std::int64_t width,
           bool deterministic = true);
  ~SpmmPlan();
  SpmmPlan(const SpmmPlan&) = delete;
  SpmmPlan& operator=(const SpmmPlan&) = delete;
  void run(DeviceConstView x, DeviceView y, float beta = 0.0f);

 private:
  struct Descriptors;
  void scale_without_entries(DeviceView y, float beta) const;
  const Libraries& libraries_;
  const DeviceCsr& a_;
  std::int64_t width_;
  std::unique_ptr<Descriptors> descriptors_;  // null without entries
};

// c = alpha · op(a) · op(b) + beta · c through cuBLAS, row-major.
void gemm(const Libraries& libraries, bool trans_a, bool trans_b, float alpha, DeviceConstView a,
          DeviceConstView b, float beta, DeviceView c);

void relu_forward(const Context& context, DeviceConstView in, DeviceView out);
void relu_backward(const Context& context, DeviceConstView out_or_in, DeviceConstView grad_out,
                   DeviceView grad_in);
// y[r, :] += bias (bias: y.cols floats in device memory).
void add_bias_rows(const Context& context, DeviceView y, const float* bias);
// kernels::dropout's mask, bit for bit; row_ids: x.rows global ids in device memory.
void dropout(const Context& context, DeviceView x, const GlobalId* row_ids, float p,
             std::uint64_t seed, std::int64_t epoch, std::int32_t layer);
// out = dropout(in), the same mask (in may be out; p 0 copies).
void dropout_copy(const Context& context, DeviceConstView in, DeviceView out,
                  const GlobalId* row_ids, float p, std::uint64_t seed, std::int64_t epoch,
                  std::int32_t layer);
// kernels::masked_log_softmax_nll on device rows (labels, mask: logits.rows entries in
// device memory). Per-row losses are summed on the host in row order.
double masked_log_softmax_nll(const Context& context, DeviceConstView logits,
                              const std::int32_t* labels, const std::uint8_t* mask,
                              double normalizer, DeviceView grad);
// kernels::adam_step over n device floats.
void adam_step(const Context& context, float* param, const float* grad, float* m, float* v,
               std::int64_t n, const AdamConfig& config, std::int64_t step);

}  // namespace strata::kernels::gpu
