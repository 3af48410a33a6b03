// The CPU backend: host memory and the kernels of kernels.h. Where a backend operation
// takes a bare pointer, the size kernels.h wants comes from the view it goes with.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "strata/kernels/backend.h"
#include "strata/kernels/sparse_features.h"

namespace strata::kernels {
namespace {

template <typename T>
std::span<T> span_of(T* data, std::int64_t n) {
  return {data, static_cast<std::size_t>(n)};
}

std::span<double> doubles(GradientSums sums) {
  return {static_cast<double*>(sums.data), static_cast<std::size_t>(sums.size())};
}

Csr owned_copy(CsrView a) {
  Csr c;
  c.rows = a.rows;
  c.cols = a.cols;
  const auto nnz = static_cast<std::size_t>(a.nnz());
  c.offsets.assign(a.offsets, a.offsets + a.rows + 1);
  c.indices.assign(a.indices, a.indices + nnz);
  if (a.values != nullptr) c.values.assign(a.values, a.values + nnz);
  if (a.row_scale != nullptr) c.row_scale.assign(a.row_scale, a.row_scale + a.rows);
  if (a.col_scale != nullptr) c.col_scale.assign(a.col_scale, a.col_scale + a.cols);
  return c;
}

class CpuSparse : public SparseMatrix {
 public:
  explicit CpuSparse(CsrView a) : a_(owned_copy(a)) {}
  LocalId rows() const override { return a_.rows; }
  LocalId cols() const override { return a_.cols; }
  void multiply(ConstMatrixView x, MatrixView y, float beta) override {
    spmm(a_.view(), x, y, beta);
  }
  void multiply_bf16(Bf16RowsView x, MatrixView y, float beta) override {
    spmm(a_.view(), x, y, beta);
  }

 private:
  Csr a_;
};

// A CSR multiplied in place: its arrays belong to the caller.
class CpuSparseView : public SparseMatrix {
 public:
  explicit CpuSparseView(CsrView a) : a_(a) {}
  LocalId rows() const override { return a_.rows; }
  LocalId cols() const override { return a_.cols; }
  void multiply(ConstMatrixView x, MatrixView y, float beta) override { spmm(a_, x, y, beta); }
  void multiply_bf16(Bf16RowsView x, MatrixView y, float beta) override { spmm(a_, x, y, beta); }

 private:
  CsrView a_;
};

class CpuSparseFeatures : public SparseFeatureMatrix {
 public:
  explicit CpuSparseFeatures(CsrView x) : x_(owned_copy(x)), features_(x_.view()) {}
  LocalId rows() const override { return x_.rows; }
  LocalId cols() const override { return x_.cols; }
  void reset() override { features_.reset(); }
  void dropout(const GlobalId* row_ids, float p, std::uint64_t seed, std::int64_t epoch,
               std::int32_t layer) override {
    features_.dropout(span_of(row_ids, x_.rows), p, seed, epoch, layer);
  }
  void multiply(ConstMatrixView w, MatrixView y, float beta) override {
    spmm(features_.view(), w, y, beta);
  }
  void multiply_transposed(ConstMatrixView d, MatrixView g, float beta) override {
    spmm(features_.transposed_view(), d, g, beta);
  }
  void accumulate_transposed(ConstMatrixView d, GradientSums sums) override {
    STRATA_CHECK(sums.rows == x_.cols && sums.cols == d.cols, "accumulate_transposed: sums are ",
                 sums.rows, "x", sums.cols, " for ", x_.cols, "x", d.cols);
    spmm_accumulate(features_.transposed_view(), d, doubles(sums));
  }
  void to_dense(MatrixView out) override { features_.to_dense(out); }

 private:
  Csr x_;  // SparseFeatures reads the pattern and raw values in place
  SparseFeatures features_;
};

class CpuBackend : public Backend {
 public:
  const char* name() const override { return "cpu"; }

  // Zeroed, so that a tensor read before it is written reads zeros, not garbage.
  void* allocate(std::size_t bytes) const override {
    void* data = std::calloc(bytes, 1);
    if (data == nullptr) throw std::bad_alloc();
    return data;
  }
  void release(void* data) const override { std::free(data); }
  void upload(void* dst, const void* host, std::size_t bytes) const override {
    std::memcpy(dst, host, bytes);
  }
  void download(void* host, const void* src, std::size_t bytes) const override {
    std::memcpy(host, src, bytes);
  }
  void zero(void* data, std::size_t bytes) const override { std::memset(data, 0, bytes); }
  void synchronize() const override {}
  bool host_memory() const override { return true; }

  std::unique_ptr<SparseMatrix> sparse(CsrView a) const override {
    return std::make_unique<CpuSparse>(a);
  }
  std::unique_ptr<SparseMatrix> sparse_view(CsrView a) const override {
    return std::make_unique<CpuSparseView>(a);
  }
  std::unique_ptr<SparseFeatureMatrix> sparse_features(CsrView x) const override {
    return std::make_unique<CpuSparseFeatures>(x);
  }
  void gemm(bool trans_a, bool trans_b, float alpha, ConstMatrixView a, ConstMatrixView b,
            float beta, MatrixView c) const override {
    kernels::gemm(trans_a, trans_b, alpha, a, b, beta, c);
  }
  void relu_forward(ConstMatrixView in, MatrixView out) const override {
    kernels::relu_forward(in, out);
  }
  void relu_backward(ConstMatrixView out_or_in, ConstMatrixView grad_out,
                     MatrixView grad_in) const override {
    kernels::relu_backward(out_or_in, grad_out, grad_in);
  }
  void add_bias_rows(MatrixView y, const float* bias) const override {
    kernels::add_bias_rows(y, span_of(bias, y.cols));
  }
  void column_sums(ConstMatrixView x, float* out, bool accumulate) const override {
    kernels::column_sums(x, span_of(out, x.cols), accumulate);
  }
  void elu_forward(ConstMatrixView in, MatrixView out) const override {
    kernels::elu_forward(in, out);
  }
  void elu_backward(ConstMatrixView out, ConstMatrixView grad_out,
                    MatrixView grad_in) const override {
    kernels::elu_backward(out, grad_out, grad_in);
  }
  void attention_softmax(const EdgeBlock& g, int heads, ConstMatrixView s_dst,
                         ConstMatrixView s_src, float slope, float* alpha) const override {
    kernels::attention_softmax(g, heads, s_dst, s_src, slope, alpha);
  }
  void attention_aggregate(const EdgeBlock& g, int heads, const float* alpha,
                           const AttentionDropout& dropout, ConstMatrixView h,
                           MatrixView out) const override {
    kernels::attention_aggregate(g, heads, alpha, dropout, h, out);
  }
  void attention_backward(const EdgeBlock& g, int heads, const float* alpha,
                          const AttentionDropout& dropout, ConstMatrixView s_dst,
                          ConstMatrixView s_src, float slope, ConstMatrixView grad_out,
                          ConstMatrixView h, float* grad_z, MatrixView grad_s_dst) const override {
    kernels::attention_backward(g, heads, alpha, dropout, s_dst, s_src, slope, grad_out, h, grad_z,
                                grad_s_dst);
  }
  void attention_scatter(const EdgeBlock& g, int heads, const float* alpha,
                         const AttentionDropout& dropout, ConstMatrixView grad_out,
                         const float* grad_z, MatrixView grad_h,
                         MatrixView grad_s_src) const override {
    kernels::attention_scatter(g, heads, alpha, dropout, grad_out, grad_z, grad_h, grad_s_src);
  }
  void copy(ConstMatrixView x, MatrixView y) const override { kernels::copy(x, y); }
  void axpy(float alpha, ConstMatrixView x, MatrixView y) const override {
    kernels::axpy(alpha, x, y);
  }
  void scale(MatrixView x, float alpha) const override { kernels::scale(x, alpha); }
  void dropout(MatrixView x, const GlobalId* row_ids, float p, std::uint64_t seed,
               std::int64_t epoch, std::int32_t layer) const override {
    kernels::dropout(x, span_of(row_ids, x.rows), p, seed, epoch, layer);
  }
  void mix(float alpha, ConstMatrixView x, float beta, MatrixView y) const override {
    kernels::mix(alpha, x, beta, y);
  }
  void axpy_scale(float alpha, MatrixView x, MatrixView y, float beta) const override {
    kernels::axpy_scale(alpha, x, y, beta);
  }
  void dropout_copy(ConstMatrixView x, MatrixView y, const GlobalId* row_ids, float p,
                    std::uint64_t seed, std::int64_t epoch, std::int32_t layer) const override {
    kernels::dropout_copy(x, y, span_of(row_ids, x.rows), p, seed, epoch, layer);
  }
  void mix_gemm_relu(float alpha, ConstMatrixView h0, float beta, MatrixView s, ConstMatrixView w,
                     MatrixView y, const DropInto& next) const override {
    kernels::mix_gemm_relu(alpha, h0, beta, s, w, y, next);
  }
  void relu_gemm_split(ConstMatrixView y, MatrixView grad_y, ConstMatrixView w, MatrixView grad_z,
                       float alpha, MatrixView grad_h0, float beta, const DropInto& drop,
                       const WeightGradient& weight) const override {
    kernels::WeightGradientInto into{weight.alpha, weight.a, {}};
    if (weight.sums.data != nullptr) {
      STRATA_CHECK(weight.sums.rows == weight.a.cols && weight.sums.cols == grad_y.cols,
                   "relu_gemm_split: sums are ", weight.sums.rows, "x", weight.sums.cols, " for ",
                   weight.a.cols, "x", grad_y.cols);
      into.sums = doubles(weight.sums);
    }
    kernels::relu_gemm_split(y, grad_y, w, grad_z, alpha, grad_h0, beta, drop, into);
  }
  double masked_log_softmax_nll(ConstMatrixView logits, const std::int32_t* labels,
                                const std::uint8_t* mask, double normalizer,
                                MatrixView grad) const override {
    return kernels::masked_log_softmax_nll(logits, span_of(labels, logits.rows),
                                           span_of(mask, logits.rows), normalizer, grad);
  }
  std::int64_t argmax_correct(ConstMatrixView logits, const std::int32_t* labels,
                              const std::uint8_t* mask) const override {
    return kernels::argmax_correct(logits, span_of(labels, logits.rows),
                                   span_of(mask, logits.rows));
  }
  DType gradient_type() const override { return DType::kFloat64; }
  void gemm_tn_accumulate(float alpha, ConstMatrixView a, ConstMatrixView b,
                          GradientSums sums) const override {
    STRATA_CHECK(sums.rows == a.cols && sums.cols == b.cols, "gemm_tn_accumulate: sums are ",
                 sums.rows, "x", sums.cols, " for ", a.cols, "x", b.cols);
    kernels::gemm_tn_accumulate(a, b, doubles(sums), alpha);
  }
  void column_sums_accumulate(ConstMatrixView x, GradientSums sums) const override {
    kernels::column_sums_accumulate(x, doubles(sums));
  }
  void cast_gradients(const void* sums, float* out, std::int64_t n) const override {
    kernels::cast_to_float(span_of(static_cast<const double*>(sums), n), span_of(out, n));
  }
  void adam_step(float* param, const float* grad, float* m, float* v, std::int64_t n,
                 const AdamConfig& config, std::int64_t step) const override {
    kernels::adam_step(span_of(param, n), span_of(grad, n), span_of(m, n), span_of(v, n), config,
                       step);
  }
  void encode_rows(ConstMatrixView rows, const LocalId* list, std::int64_t n, RowCodec codec,
                   std::uint64_t key, void* packed) const override {
    kernels::encode_rows(rows, list, n, codec, key, packed);
  }
  void decode_rows(const void* packed, RowCodec codec, const LocalId* list, std::int64_t n,
                   MatrixView rows, bool add) const override {
    kernels::decode_rows(packed, codec, list, n, rows, add);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace strata::kernels
