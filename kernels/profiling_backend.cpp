#include "strata/kernels/profiling_backend.h"

#include <type_traits>
#include <utility>

#include "strata/core/row_codec.h"
#include "strata/core/timer.h"

namespace strata::kernels {
namespace {

constexpr double kFloat = sizeof(float);
constexpr double kEntry = sizeof(LocalId) + sizeof(float);  // a stored index and value

double values(ConstMatrixView m) {
  return static_cast<double>(m.rows) * static_cast<double>(m.cols);
}
double values(MatrixView m) {
  return values(ConstMatrixView(m));
}

// Times each call, waiting for the queue on both sides.
class Recorder {
 public:
  Recorder(const Backend& inner, OpProfile& profile, FloorOf floor_of)
      : inner_(inner), profile_(profile), floor_of_(std::move(floor_of)) {}

  template <typename F>
  auto operator()(const char* name, const OpCost& cost, F&& run) const {
    inner_.synchronize();
    const Timer timer;
    if constexpr (std::is_void_v<decltype(run())>) {
      run();
      finish(name, cost, timer);
    } else {
      auto result = run();
      finish(name, cost, timer);
      return result;
    }
  }

 private:
  void finish(const char* name, const OpCost& cost, const Timer& timer) const {
    inner_.synchronize();
    OpRecord& op = profile_[name];
    op.calls += 1, op.seconds += timer.seconds(), op.cost += cost;
    if (floor_of_) op.floor_s += floor_of_(cost);
  }

  const Backend& inner_;
  OpProfile& profile_;
  FloorOf floor_of_;
};

// A sparse matrix as a product reads it: its entries, the bytes each streams (its column,
// and its value where stored), its scales (CsrView::row_scale), and the bytes gathered an
// entry beside x's row (a column's scale).
struct SparseShape {
  double entries = 0, entry_bytes = kEntry, scale_bytes = 0, gathered_bytes = 0;
};

// host: as the CPU kernels read a; a device backend multiplies its values stored.
SparseShape shape_of(CsrView a, bool host) {
  if (!host) return {static_cast<double>(a.nnz())};
  SparseShape s{static_cast<double>(a.nnz()), sizeof(LocalId), 0, 0};
  if (a.values != nullptr) s.entry_bytes += kFloat;
  if (a.row_scale != nullptr) s.scale_bytes += a.rows * kFloat;
  if (a.col_scale != nullptr) s.scale_bytes += a.cols * kFloat, s.gathered_bytes = kFloat;
  return s;
}

// A product with a matrix: the matrix once, x once (`x_value` bytes a value: fp32, or bf16
// history), y written (and read with beta), x's rows (and a column's scale) gathered once
// per entry.
OpCost sparse_product(const SparseShape& a, double rows, double x_values, std::int64_t x_cols,
                      double x_value, MatrixView y, float beta) {
  const double entries = a.entries;
  return {entries * a.entry_bytes + a.scale_bytes + rows * sizeof(EdgeOffset) + x_values * x_value +
              values(y) * kFloat * (beta != 0.0f ? 2 : 1),
          entries * (static_cast<double>(x_cols) * x_value + a.gathered_bytes),
          2 * entries * static_cast<double>(x_cols), x_values * x_value};
}
OpCost sparse_product(const SparseShape& a, double rows, ConstMatrixView x, MatrixView y,
                      float beta) {
  return sparse_product(a, rows, values(x), x.cols, kFloat, y, beta);
}

// A pass over a block's entries: each entry's column and `arrays` per-entry arrays of
// `heads` floats streamed, a gathered row of `width` floats per entry, 2 flops a value.
OpCost attention_cost(const EdgeBlock& g, int heads, std::int64_t width, int arrays) {
  const auto entries = static_cast<double>(g.entries);
  return {entries * (sizeof(LocalId) + arrays * heads * kFloat),
          entries * static_cast<double>(width + heads) * kFloat,
          2 * entries * static_cast<double>(width + heads)};
}

class ProfiledSparse : public SparseMatrix {
 public:
  ProfiledSparse(std::unique_ptr<SparseMatrix> inner, SparseShape shape, const Recorder& record)
      : inner_(std::move(inner)), shape_(shape), record_(record) {}
  LocalId rows() const override { return inner_->rows(); }
  LocalId cols() const override { return inner_->cols(); }
  void multiply(ConstMatrixView x, MatrixView y, float beta) override {
    record_("spmm", sparse_product(shape_, rows(), x, y, beta),
            [&] { inner_->multiply(x, y, beta); });
  }
  void multiply_bf16(Bf16RowsView x, MatrixView y, float beta) override {
    const auto x_values = static_cast<double>(x.rows * x.cols);
    record_("spmm", sparse_product(shape_, rows(), x_values, x.cols, 2.0, y, beta),
            [&] { inner_->multiply_bf16(x, y, beta); });
  }

 private:
  std::unique_ptr<SparseMatrix> inner_;
  SparseShape shape_;
  Recorder record_;
};

class ProfiledFeatures : public SparseFeatureMatrix {
 public:
  ProfiledFeatures(std::unique_ptr<SparseFeatureMatrix> inner, double entries,
                   const Recorder& record, double gradient_bytes)
      : inner_(std::move(inner)), entries_(entries), record_(record), grad_(gradient_bytes) {}
  LocalId rows() const override { return inner_->rows(); }
  LocalId cols() const override { return inner_->cols(); }
  void reset() override {
    record_("features_dropout", {entries_ * 2 * kFloat, 0, 0}, [&] { inner_->reset(); });
  }
  void dropout(const GlobalId* row_ids, float p, std::uint64_t seed, std::int64_t epoch,
               std::int32_t layer) override {
    record_("features_dropout", {entries_ * (kEntry + kFloat), 0, 0},
            [&] { inner_->dropout(row_ids, p, seed, epoch, layer); });
  }
  void multiply(ConstMatrixView w, MatrixView y, float beta) override {
    record_("features_multiply", sparse_product({entries_}, rows(), w, y, beta),
            [&] { inner_->multiply(w, y, beta); });
  }
  void multiply_transposed(ConstMatrixView d, MatrixView g, float beta) override {
    record_("features_multiply_transposed", sparse_product({entries_}, cols(), d, g, beta),
            [&] { inner_->multiply_transposed(d, g, beta); });
  }
  void accumulate_transposed(ConstMatrixView d, GradientSums sums) override {
    OpCost cost = sparse_product({entries_}, cols(), d, {}, 0.0f);
    cost.bytes += 2 * static_cast<double>(sums.size()) * grad_;
    record_("features_weight_gradient", cost, [&] { inner_->accumulate_transposed(d, sums); });
  }
  void to_dense(MatrixView out) override {
    record_("features_to_dense", {entries_ * kEntry + values(out) * kFloat, 0, 0},
            [&] { inner_->to_dense(out); });
  }

 private:
  std::unique_ptr<SparseFeatureMatrix> inner_;
  double entries_;
  Recorder record_;
  double grad_;
};

class ProfilingBackend : public Backend {
 public:
  ProfilingBackend(const Backend& inner, OpProfile& profile, FloorOf floor_of)
      : inner_(inner),
        record_(inner, profile, std::move(floor_of)),
        grad_(inner.gradient_type() == DType::kFloat64 ? sizeof(double) : sizeof(float)) {}

  const char* name() const override { return inner_.name(); }
  void* allocate(std::size_t bytes) const override { return inner_.allocate(bytes); }
  void release(void* data) const override { inner_.release(data); }
  void upload(void* dst, const void* host, std::size_t bytes) const override {
    record_("upload", {static_cast<double>(bytes), 0, 0}, [&] { inner_.upload(dst, host, bytes); });
  }
  void download(void* host, const void* src, std::size_t bytes) const override {
    record_("download", {static_cast<double>(bytes), 0, 0},
            [&] { inner_.download(host, src, bytes); });
  }
  void zero(void* data, std::size_t bytes) const override {
    record_("zero", {static_cast<double>(bytes), 0, 0}, [&] { inner_.zero(data, bytes); });
  }
  void synchronize() const override { inner_.synchronize(); }
  bool host_memory() const override { return inner_.host_memory(); }

  std::unique_ptr<SparseMatrix> sparse(CsrView a) const override {
    return std::make_unique<ProfiledSparse>(inner_.sparse(a), shape_of(a, inner_.host_memory()),
                                            record_);
  }
  std::unique_ptr<SparseMatrix> sparse_view(CsrView a) const override {
    return std::make_unique<ProfiledSparse>(inner_.sparse_view(a),
                                            shape_of(a, inner_.host_memory()), record_);
  }
  std::unique_ptr<SparseFeatureMatrix> sparse_features(CsrView x) const override {
    return std::make_unique<ProfiledFeatures>(inner_.sparse_features(x),
                                              static_cast<double>(x.nnz()), record_, grad_);
  }
  void gemm(bool trans_a, bool trans_b, float alpha, ConstMatrixView a, ConstMatrixView b,
            float beta, MatrixView c) const override {
    const double k = static_cast<double>(trans_a ? a.rows : a.cols);
    const OpCost cost{(values(a) + values(b) + values(c) * (beta != 0.0f ? 2 : 1)) * kFloat, 0,
                      2 * values(c) * k};
    record_("gemm", cost, [&] { inner_.gemm(trans_a, trans_b, alpha, a, b, beta, c); });
  }
  void relu_forward(ConstMatrixView in, MatrixView out) const override {
    record_("relu_forward", streamed(in, 2), [&] { inner_.relu_forward(in, out); });
  }
  void relu_backward(ConstMatrixView out_or_in, ConstMatrixView grad_out,
                     MatrixView grad_in) const override {
    record_("relu_backward", streamed(grad_out, 3),
            [&] { inner_.relu_backward(out_or_in, grad_out, grad_in); });
  }
  void add_bias_rows(MatrixView y, const float* bias) const override {
    record_("add_bias_rows", streamed(y, 2), [&] { inner_.add_bias_rows(y, bias); });
  }
  void column_sums(ConstMatrixView x, float* out, bool accumulate) const override {
    record_("column_sums", streamed(x, 1), [&] { inner_.column_sums(x, out, accumulate); });
  }
  void elu_forward(ConstMatrixView in, MatrixView out) const override {
    record_("elu_forward", streamed(in, 2), [&] { inner_.elu_forward(in, out); });
  }
  void elu_backward(ConstMatrixView out, ConstMatrixView grad_out,
                    MatrixView grad_in) const override {
    record_("elu_backward", streamed(grad_out, 3),
            [&] { inner_.elu_backward(out, grad_out, grad_in); });
  }
  void attention_softmax(const EdgeBlock& g, int heads, ConstMatrixView s_dst,
                         ConstMatrixView s_src, float slope, float* alpha) const override {
    record_("attention_softmax", attention_cost(g, heads, 0, 2),
            [&] { inner_.attention_softmax(g, heads, s_dst, s_src, slope, alpha); });
  }
  void attention_aggregate(const EdgeBlock& g, int heads, const float* alpha,
                           const AttentionDropout& dropout, ConstMatrixView h,
                           MatrixView out) const override {
    record_("attention_aggregate", attention_cost(g, heads, h.cols, 1),
            [&] { inner_.attention_aggregate(g, heads, alpha, dropout, h, out); });
  }
  void attention_backward(const EdgeBlock& g, int heads, const float* alpha,
                          const AttentionDropout& dropout, ConstMatrixView s_dst,
                          ConstMatrixView s_src, float slope, ConstMatrixView grad_out,
                          ConstMatrixView h, float* grad_z, MatrixView grad_s_dst) const override {
    record_("attention_backward", attention_cost(g, heads, h.cols, 3), [&] {
      inner_.attention_backward(g, heads, alpha, dropout, s_dst, s_src, slope, grad_out, h, grad_z,
                                grad_s_dst);
    });
  }
  void attention_scatter(const EdgeBlock& g, int heads, const float* alpha,
                         const AttentionDropout& dropout, ConstMatrixView grad_out,
                         const float* grad_z, MatrixView grad_h,
                         MatrixView grad_s_src) const override {
    record_("attention_scatter", attention_cost(g, heads, grad_out.cols, 3), [&] {
      inner_.attention_scatter(g, heads, alpha, dropout, grad_out, grad_z, grad_h, grad_s_src);
    });
  }
  void copy(ConstMatrixView x, MatrixView y) const override {
    record_("copy", streamed(x, 2), [&] { inner_.copy(x, y); });
  }
  void axpy(float alpha, ConstMatrixView x, MatrixView y) const override {
    record_("axpy", streamed(x, 3), [&] { inner_.axpy(alpha, x, y); });
  }
  void scale(MatrixView x, float alpha) const override {
    record_("scale", streamed(x, 2), [&] { inner_.scale(x, alpha); });
  }
  void dropout(MatrixView x, const GlobalId* row_ids, float p, std::uint64_t seed,
               std::int64_t epoch, std::int32_t layer) const override {
    record_("dropout", streamed(x, 2), [&] { inner_.dropout(x, row_ids, p, seed, epoch, layer); });
  }
  void mix(float alpha, ConstMatrixView x, float beta, MatrixView y) const override {
    record_("mix", streamed(x, 3), [&] { inner_.mix(alpha, x, beta, y); });
  }
  void axpy_scale(float alpha, MatrixView x, MatrixView y, float beta) const override {
    record_("axpy_scale", streamed(x, 4), [&] { inner_.axpy_scale(alpha, x, y, beta); });
  }
  void dropout_copy(ConstMatrixView x, MatrixView y, const GlobalId* row_ids, float p,
                    std::uint64_t seed, std::int64_t epoch, std::int32_t layer) const override {
    record_("dropout_copy", streamed(x, 2),
            [&] { inner_.dropout_copy(x, y, row_ids, p, seed, epoch, layer); });
  }
  // Fused: each matrix once (h0 and w read, s read and written, y written, and the next
  // input written where it is not y), the GEMM's flops.
  void mix_gemm_relu(float alpha, ConstMatrixView h0, float beta, MatrixView s, ConstMatrixView w,
                     MatrixView y, const DropInto& next) const override {
    const bool copies = next.to.data != nullptr && next.to.data != y.data;
    const OpCost cost{(3 * values(h0) + values(w) + values(y) * (copies ? 2 : 1)) * kFloat, 0,
                      2 * values(y) * static_cast<double>(w.rows)};
    record_("mix_gemm_relu", cost, [&] { inner_.mix_gemm_relu(alpha, h0, beta, s, w, y, next); });
  }
  // y read, grad_y and grad_h0 read and written, grad_z written, w read; with the weight
  // gradient, a read and the sums read and written too (as gemm_tn_accumulate counts them).
  void relu_gemm_split(ConstMatrixView y, MatrixView grad_y, ConstMatrixView w, MatrixView grad_z,
                       float alpha, MatrixView grad_h0, float beta, const DropInto& drop,
                       const WeightGradient& weight) const override {
    OpCost cost{(3 * values(y) + 3 * values(grad_z) + values(w)) * kFloat, 0,
                2 * values(grad_z) * static_cast<double>(w.cols)};
    if (weight.sums.data != nullptr) {
      const double sums = static_cast<double>(weight.sums.size());
      cost.bytes += values(weight.a) * kFloat + 2 * sums * grad_;
      cost.flops += 2 * sums * static_cast<double>(weight.a.rows);
    }
    record_("relu_gemm_split", cost, [&] {
      inner_.relu_gemm_split(y, grad_y, w, grad_z, alpha, grad_h0, beta, drop, weight);
    });
  }
  double masked_log_softmax_nll(ConstMatrixView logits, const std::int32_t* labels,
                                const std::uint8_t* mask, double normalizer,
                                MatrixView grad) const override {
    return record_("loss", streamed(logits, 2), [&] {
      return inner_.masked_log_softmax_nll(logits, labels, mask, normalizer, grad);
    });
  }
  std::int64_t argmax_correct(ConstMatrixView logits, const std::int32_t* labels,
                              const std::uint8_t* mask) const override {
    return record_("accuracy", streamed(logits, 1),
                   [&] { return inner_.argmax_correct(logits, labels, mask); });
  }
  DType gradient_type() const override { return inner_.gradient_type(); }
  void gemm_tn_accumulate(float alpha, ConstMatrixView a, ConstMatrixView b,
                          GradientSums sums) const override {
    const double sums_values = static_cast<double>(sums.size());
    const OpCost cost{(values(a) + values(b)) * kFloat + 2 * sums_values * grad_, 0,
                      2 * sums_values * static_cast<double>(a.rows)};
    record_("weight_gradient", cost, [&] { inner_.gemm_tn_accumulate(alpha, a, b, sums); });
  }
  void column_sums_accumulate(ConstMatrixView x, GradientSums sums) const override {
    record_("column_sums", streamed(x, 1), [&] { inner_.column_sums_accumulate(x, sums); });
  }
  void cast_gradients(const void* sums, float* out, std::int64_t n) const override {
    record_("cast_gradients", {static_cast<double>(n) * (grad_ + kFloat), 0, 0},
            [&] { inner_.cast_gradients(sums, out, n); });
  }
  void adam_step(float* param, const float* grad, float* m, float* v, std::int64_t n,
                 const AdamConfig& config, std::int64_t step) const override {
    // The parameter, m and v read and written, the gradient read.
    record_("optimizer", {static_cast<double>(n) * 7 * kFloat, 0, 0},
            [&] { inner_.adam_step(param, grad, m, v, n, config, step); });
  }
  void encode_rows(ConstMatrixView rows, const LocalId* list, std::int64_t n, RowCodec codec,
                   std::uint64_t key, void* packed) const override {
    record_("encode_rows", packing(n, rows.cols, codec, 1),
            [&] { inner_.encode_rows(rows, list, n, codec, key, packed); });
  }
  void decode_rows(const void* packed, RowCodec codec, const LocalId* list, std::int64_t n,
                   MatrixView rows, bool add) const override {
    record_("decode_rows", packing(n, rows.cols, codec, add ? 2 : 1),
            [&] { inner_.decode_rows(packed, codec, list, n, rows, add); });
  }

 private:
  // An elementwise pass over `passes` matrices of m's shape.
  static OpCost streamed(ConstMatrixView m, int passes) {
    return {values(m) * kFloat * passes, 0, 0};
  }
  static OpCost packing(std::int64_t n, std::int64_t cols, RowCodec codec, int row_passes) {
    const double rows = static_cast<double>(n);
    return {rows * (static_cast<double>(cols) * kFloat * row_passes +
                    static_cast<double>(row_codec_bytes(codec, cols)) + sizeof(LocalId)),
            0, 0};
  }

  const Backend& inner_;
  Recorder record_;
  double grad_;
};

}  // namespace

std::unique_ptr<Backend> make_profiling_backend(const Backend& inner, OpProfile& profile,
                                                FloorOf floor_of) {
  return std::make_unique<ProfilingBackend>(inner, profile, std::move(floor_of));
}

}  // namespace strata::kernels
