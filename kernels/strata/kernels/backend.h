// A backend: where a worker's tensors live and the table of operations over them. The
// one engine is written against it (the models' stages in layers/, the trainers in
// training/) and runs the same on the CPU backend (the kernels of kernels.h over host
// memory) and on the CUDA backend (the kernels of gpu.h over device memory, on one
// Context's stream), so its logic is tested on the CPU and only the table differs on a GPU.
//
// Every pointer and view handed to a backend's operations is in that backend's memory.
// Operations are ordered (a CUDA backend queues them on its stream); upload, download
// and the operations that return a host value wait for the work before them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "strata/core/device.h"
#include "strata/core/matrix.h"
#include "strata/core/types.h"
#include "strata/graph/csr.h"
#include "strata/kernels/attention.h"
#include "strata/kernels/kernels.h"

namespace strata::kernels {

class Backend;

// `bytes` of a backend's memory, freed on destruction.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Backend& backend, std::size_t bytes);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  // `bytes` at data, which belongs to someone else and must outlive the result.
  static Buffer borrowed(void* data, std::size_t bytes);

  void* data() { return data_; }
  const void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  template <typename T>
  T* as() {
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* as() const {
    return static_cast<const T*>(data_);
  }

 private:
  const Backend* backend_ = nullptr;  // null: borrowed, not released
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// A rows x cols float matrix, row-major, in a backend's memory, zeroed when made (a
// buffer read before it is written, like the pipeline's history, reads zeros everywhere).
class Tensor {
 public:
  Tensor() = default;
  Tensor(const Backend& backend, std::int64_t rows, std::int64_t cols);
  // rows x cols floats at data, another buffer's (which must outlive the result): two
  // names for one matrix whose uses never overlap in time.
  static Tensor view_of(float* data, std::int64_t rows, std::int64_t cols);
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t size() const { return rows_ * cols_; }
  float* data() { return buffer_.as<float>(); }
  const float* data() const { return buffer_.as<float>(); }
  MatrixView view() { return {data(), rows_, cols_, cols_}; }
  ConstMatrixView view() const { return {data(), rows_, cols_, cols_}; }

 private:
  Buffer buffer_;
  std::int64_t rows_ = 0, cols_ = 0;
};

// One parameter tensor's gradient sums in a backend's memory: rows x cols, row-major, of
// the backend's gradient_type().
struct GradientSums {
  void* data = nullptr;
  std::int64_t rows = 0, cols = 0;
  std::int64_t size() const { return rows * cols; }
};

// What relu_gemm_split adds its layer's weight gradient to (nothing where sums.data is null).
struct WeightGradient {
  float alpha = 0.0f;
  ConstMatrixView a;
  GradientSums sums;
};

// A CSR matrix copied into a backend's memory, ready to multiply dense matrices of any
// width (the CUDA backend keeps one cuSPARSE plan per width).
class SparseMatrix {
 public:
  virtual ~SparseMatrix() = default;
  virtual LocalId rows() const = 0;
  virtual LocalId cols() const = 0;
  // y = a · x + beta · y.
  virtual void multiply(ConstMatrixView x, MatrixView y, float beta = 0.0f) = 0;
  // The same with x in bf16, widened to fp32 as read (stored historical embeddings).
  virtual void multiply_bf16(Bf16RowsView x, MatrixView y, float beta = 0.0f) = 0;
};

// Sparse input features in a backend's memory (sparse_features.h's twin): X and Xᵀ with
// their current values, the raw ones or those of the last dropout, which draws
// kernels::dropout_csr's mask (the dense dropout's, entry for entry).
class SparseFeatureMatrix {
 public:
  virtual ~SparseFeatureMatrix() = default;
  virtual LocalId rows() const = 0;
  virtual LocalId cols() const = 0;
  virtual void reset() = 0;
  // row_ids: rows() global ids in the backend's memory.
  virtual void dropout(const GlobalId* row_ids, float p, std::uint64_t seed, std::int64_t epoch,
                       std::int32_t layer) = 0;
  // y = X · w + beta · y, and g = Xᵀ · d + beta · g.
  virtual void multiply(ConstMatrixView w, MatrixView y, float beta = 0.0f) = 0;
  virtual void multiply_transposed(ConstMatrixView d, MatrixView g, float beta = 0.0f) = 0;
  // sums (cols() x d.cols) += Xᵀ · d, in the backend's gradient type.
  virtual void accumulate_transposed(ConstMatrixView d, GradientSums sums) = 0;
  // out (rows x cols) = X with the current values.
  virtual void to_dense(MatrixView out) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;  // "cpu" | "cuda"

  virtual void* allocate(std::size_t bytes) const = 0;
  virtual void release(void* data) const = 0;
  virtual void upload(void* dst, const void* host, std::size_t bytes) const = 0;
  virtual void download(void* host, const void* src, std::size_t bytes) const = 0;
  virtual void zero(void* data, std::size_t bytes) const = 0;
  // Waits for every operation queued so far (a timer's end).
  virtual void synchronize() const = 0;
  // Whether this backend's memory is the host's: a host array may be handed to its
  // operations as it is, without a copy.
  virtual bool host_memory() const { return false; }

  virtual std::unique_ptr<SparseMatrix> sparse(CsrView a) const = 0;
  // As sparse(a), but a host backend multiplies a's arrays where they are (no second copy
  // of the graph in host memory): they must outlive the result. A device backend copies.
  virtual std::unique_ptr<SparseMatrix> sparse_view(CsrView a) const { return sparse(a); }
  // x must carry values.
  virtual std::unique_ptr<SparseFeatureMatrix> sparse_features(CsrView x) const = 0;
  // kernels.h's operations of the same names.
  virtual void gemm(bool trans_a, bool trans_b, float alpha, ConstMatrixView a, ConstMatrixView b,
                    float beta, MatrixView c) const = 0;
  virtual void relu_forward(ConstMatrixView in, MatrixView out) const = 0;
  virtual void relu_backward(ConstMatrixView out_or_in, ConstMatrixView grad_out,
                             MatrixView grad_in) const = 0;
  virtual void add_bias_rows(MatrixView y, const float* bias) const = 0;
  virtual void elu_forward(ConstMatrixView in, MatrixView out) const = 0;
  virtual void elu_backward(ConstMatrixView out, ConstMatrixView grad_out,
                            MatrixView grad_in) const = 0;
  // attention.h's kernels; g's arrays and alpha, grad_z in this backend's memory.
  virtual void attention_softmax(const EdgeBlock& g, int heads, ConstMatrixView s_dst,
                                 ConstMatrixView s_src, float slope, float* alpha) const = 0;
  virtual void attention_aggregate(const EdgeBlock& g, int heads, const float* alpha,
                                   const AttentionDropout& dropout, ConstMatrixView h,
                                   MatrixView out) const = 0;
  virtual void attention_backward(const EdgeBlock& g, int heads, const float* alpha,
                                  const AttentionDropout& dropout, ConstMatrixView s_dst,
                                  ConstMatrixView s_src, float slope, ConstMatrixView grad_out,
                                  ConstMatrixView h, float* grad_z,
                                  MatrixView grad_s_dst) const = 0;
  virtual void attention_scatter(const EdgeBlock& g, int heads, const float* alpha,
                                 const AttentionDropout& dropout, ConstMatrixView grad_out,
                                 const float* grad_z, MatrixView grad_h,
                                 MatrixView grad_s_src) const = 0;

  // out (x.cols floats) (+)= column sums of x.
  virtual void column_sums(ConstMatrixView x, float* out, bool accumulate) const = 0;
  virtual void copy(ConstMatrixView x, MatrixView y) const = 0;
  // y += alpha · x, and x *= alpha (GCNII's residuals, history smoothing).
  virtual void axpy(float alpha, ConstMatrixView x, MatrixView y) const = 0;
  virtual void scale(MatrixView x, float alpha) const = 0;
  virtual void dropout(MatrixView x, const GlobalId* row_ids, float p, std::uint64_t seed,
                       std::int64_t epoch, std::int32_t layer) const = 0;
  // kernels.h's fused passes, the same bits as the calls they fuse.
  virtual void mix(float alpha, ConstMatrixView x, float beta, MatrixView y) const = 0;
  virtual void axpy_scale(float alpha, MatrixView x, MatrixView y, float beta) const = 0;
  virtual void dropout_copy(ConstMatrixView x, MatrixView y, const GlobalId* row_ids, float p,
                            std::uint64_t seed, std::int64_t epoch, std::int32_t layer) const = 0;
  // kernels.h's fused layer passes: GCNII's conv forward (s = beta s + alpha h0, y =
  // relu(s w), y dropped into the next layer's input) and backward (dy through that drop
  // and the ReLU, dz = dy wᵀ, dh0 += alpha dz, dz *= beta). row_ids as dropout's.
  virtual void mix_gemm_relu(float alpha, ConstMatrixView h0, float beta, MatrixView s,
                             ConstMatrixView w, MatrixView y, const DropInto& next) const = 0;
  // With weight.sums set, the backward also adds gemm_tn_accumulate(weight.alpha, weight.a,
  // grad_y (as it leaves the call), weight.sums): the layer's weight gradient.
  virtual void relu_gemm_split(ConstMatrixView y, MatrixView grad_y, ConstMatrixView w,
                               MatrixView grad_z, float alpha, MatrixView grad_h0, float beta,
                               const DropInto& drop, const WeightGradient& weight) const = 0;
  virtual double masked_log_softmax_nll(ConstMatrixView logits, const std::int32_t* labels,
                                        const std::uint8_t* mask, double normalizer,
                                        MatrixView grad) const = 0;
  virtual std::int64_t argmax_correct(ConstMatrixView logits, const std::int32_t* labels,
                                      const std::uint8_t* mask) const = 0;
  // The type weight gradients are summed in: kFloat32, or kFloat64 on the CPU, where graph
  // mode's exactness across rank counts needs it (cpu/gradient_sums.cpp says why).
  virtual DType gradient_type() const = 0;
  // sums (a.cols x b.cols) += alpha · aᵀ · b.
  virtual void gemm_tn_accumulate(float alpha, ConstMatrixView a, ConstMatrixView b,
                                  GradientSums sums) const = 0;
  // sums (1 x x.cols) += the column sums of x.
  virtual void column_sums_accumulate(ConstMatrixView x, GradientSums sums) const = 0;
  // out = the n sums as floats; out may be the sums themselves where they are floats.
  virtual void cast_gradients(const void* sums, float* out, std::int64_t n) const = 0;
  virtual void adam_step(float* param, const float* grad, float* m, float* v, std::int64_t n,
                         const AdamConfig& config, std::int64_t step) const = 0;
  // kernels.h's encode_rows and decode_rows: rows in a wire format (core/row_codec.h),
  // the same bytes on every backend; list may be null (rows 0 .. n - 1).
  virtual void encode_rows(ConstMatrixView rows, const LocalId* list, std::int64_t n,
                           RowCodec codec, std::uint64_t key, void* packed) const = 0;
  virtual void decode_rows(const void* packed, RowCodec codec, const LocalId* list, std::int64_t n,
                           MatrixView rows, bool add) const = 0;
  // packed row i = rows[list[i]], for i < n; and rows[list[i]] = (or +=) packed row i, list
  // holding no id twice: float32 rows, as encode_rows and decode_rows move them.
  void gather_rows(ConstMatrixView rows, const LocalId* list, std::int64_t n, float* packed) const {
    encode_rows(rows, list, n, RowCodec::kFloat32, 0, packed);
  }
  void scatter_rows(const float* packed, const LocalId* list, std::int64_t n, MatrixView rows,
                    bool add) const {
    decode_rows(packed, RowCodec::kFloat32, list, n, rows, add);
  }
};

std::unique_ptr<Backend> make_cpu_backend();
// `context` must outlive the backend. Throws "built without CUDA" in a CPU-only build.
// deterministic_spmm: cuSPARSE's CSR algorithm 2, the same bits every run (gpu.h's
// SpmmPlan), rather than the library's default choice.
std::unique_ptr<Backend> make_cuda_backend(const gpu::Context& context,
                                           bool deterministic_spmm = true);

// A Buffer holding a copy of `host`.
template <typename T>
Buffer to_backend(const Backend& backend, std::span<const T> host) {
  Buffer buffer(backend, host.size_bytes());
  if (!host.empty()) backend.upload(buffer.data(), host.data(), host.size_bytes());
  return buffer;
}
Tensor to_backend(const Backend& backend, ConstMatrixView host);
Matrix to_host(const Backend& backend, const Tensor& tensor);
// t as a rows x cols tensor, reallocated only when its shape differs (activations whose
// shape is fixed after the first pass).
Tensor& shaped(const Backend& backend, Tensor& t, std::int64_t rows, std::int64_t cols);

}  // namespace strata::kernels
