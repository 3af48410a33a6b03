// Kernel front end: one function per operation over dense views and CSR views.
// Every kernel is deterministic: the same inputs give bitwise the same outputs for any
// thread count (each output element is summed in one fixed order).
#pragma once
#include <cstdint>
#include <span>

#include "strata/core/matrix.h"
#include "strata/core/row_codec.h"
#include "strata/core/types.h"
#include "strata/graph/csr.h"

namespace strata::kernels {

// y = a · x + beta · y. a is rows x cols, x is cols x w, y is rows x w.
void spmm(CsrView a, ConstMatrixView x, MatrixView y, float beta = 0.0f);
// The same with x in bf16, each value widened to fp32 as it is read: the same bits as spmm
// of x decoded, without an fp32 copy of x.
void spmm(CsrView a, Bf16RowsView x, MatrixView y, float beta = 0.0f);

// c = alpha · op(a) · op(b) + beta · c, op = transpose when the flag is set.
void gemm(bool trans_a, bool trans_b, float alpha, ConstMatrixView a, ConstMatrixView b, float beta,
          MatrixView c);

// Gradient sums in double (cpu/gradient_sums.cpp says why).
// c (a.cols x b.cols, row-major) += alpha · aᵀ · b.
void gemm_tn_accumulate(ConstMatrixView a, ConstMatrixView b, std::span<double> c,
                        double alpha = 1.0);
// out[c] += Σ_r x[r, c].
void column_sums_accumulate(ConstMatrixView x, std::span<double> out);
// y (a.rows x x.cols, row-major) += a · x.
void spmm_accumulate(CsrView a, ConstMatrixView x, std::span<double> y);
void cast_to_float(std::span<const double> in, std::span<float> out);

// out = max(in, 0). out may alias in.
void relu_forward(ConstMatrixView in, MatrixView out);
// grad_in = grad_out where out_or_in > 0, else 0 (ReLU's output and input agree in sign).
void relu_backward(ConstMatrixView out_or_in, ConstMatrixView grad_out, MatrixView grad_in);
// y[r, :] += bias for every row.
void add_bias_rows(MatrixView y, std::span<const float> bias);
// out[c] (+)= Σ_r x[r, c], summed in row order; accumulate keeps out's contents.
void column_sums(ConstMatrixView x, std::span<float> out, bool accumulate = false);
// y += alpha · x.
void axpy(float alpha, ConstMatrixView x, MatrixView y);
// x *= alpha.
void scale(MatrixView x, float alpha);
// Two of the above in one pass over the rows, the same bits as the two calls:
// y = alpha · x + beta · y (scale(y, beta), then axpy(alpha, x, y)), and
// y += alpha · x then x *= beta (axpy(alpha, x, y), then scale(x, beta)).
void mix(float alpha, ConstMatrixView x, float beta, MatrixView y);
void axpy_scale(float alpha, MatrixView x, MatrixView y, float beta);
// A fused pass's output, dropped into the next layer's input as dropout_copy(out, to,
// row_ids, p, seed, epoch, layer) would (to may be out itself; p = 0 copies, or does
// nothing in place). row_ids names the rows of `to`. No `to` (null data): no drop.
struct DropInto {
  MatrixView to;
  const GlobalId* row_ids = nullptr;
  float p = 0.0f;
  std::uint64_t seed = 0;
  std::int64_t epoch = 0;
  std::int32_t layer = 0;
};

// A layer's dense tail in one pass over blocks of rows, the same bits as the calls it
// fuses wherever the BLAS computes a row alike in a block and in the whole (as OpenBLAS
// 0.3.21 does at widths of 16 and more; narrower w, it makes those calls):
// mix(alpha, h0, beta, s), then y = s w, then relu_forward(y, y), then the drop into the
// next input (GCNII's conv forward);
void mix_gemm_relu(float alpha, ConstMatrixView h0, float beta, MatrixView s, ConstMatrixView w,
                   MatrixView y, const DropInto& next);
// The layer's weight gradient, added by relu_gemm_split while its rows are in cache:
// gemm_tn_accumulate(a, grad_y, sums, alpha) over the call's rows, the same bits; none
// where sums is empty.
struct WeightGradientInto {
  double alpha = 0.0;
  ConstMatrixView a;
  std::span<double> sums;
};
// dropout(grad_y, ...) as `drop` says (drop.to is grad_y, or null: no dropout), then
// relu_backward(y, grad_y, grad_y), then grad_z = grad_y wᵀ, then
// axpy_scale(alpha, grad_z, grad_h0, beta) (its backward: the drop is that of the forward's
// next_input), then the weight gradient from the new grad_y.
void relu_gemm_split(ConstMatrixView y, MatrixView grad_y, ConstMatrixView w, MatrixView grad_z,
                     float alpha, MatrixView grad_h0, float beta, const DropInto& drop,
                     const WeightGradientInto& weight);
// y = x (same shape).
void copy(ConstMatrixView x, MatrixView y);
// x = 0.
void zero(MatrixView x);

// Inverted dropout in place: x[r, c] = 0 with probability p, else x[r, c] / (1 - p).
// The mask is a pure function of (seed, epoch, layer, row_ids[r], c), so any partition
// of the rows draws the same mask; calling it again on a gradient applies the same mask
// (that is the backward pass). row_ids holds the global id of each row.
void dropout(MatrixView x, std::span<const GlobalId> row_ids, float p, std::uint64_t seed,
             std::int64_t epoch, std::int32_t layer);
// y = dropout(x) in one pass: copy(x, y), then dropout(y, ...), the same bits.
void dropout_copy(ConstMatrixView x, MatrixView y, std::span<const GlobalId> row_ids, float p,
                  std::uint64_t seed, std::int64_t epoch, std::int32_t layer);

// dropout() on the stored values of a CSR matrix: values[k] is entry k of a (a.values is
// not read). Draws exactly dropout()'s mask for (seed, epoch, layer, row_ids[r], column).
void dropout_csr(CsrView a, std::span<float> values, std::span<const GlobalId> row_ids, float p,
                 std::uint64_t seed, std::int64_t epoch, std::int32_t layer);

// The same mask on the transpose t of such a matrix: values[k] = t.values[k] dropped, the
// entry (t.indices[k], c) of the matrix for entry k in t's row c; row_ids name t's columns
// (the matrix's rows). No gather from the matrix's own values is needed.
void dropout_csr_transposed(CsrView t, std::span<float> values, std::span<const GlobalId> row_ids,
                            float p, std::uint64_t seed, std::int64_t epoch, std::int32_t layer);

// Softmax cross-entropy over rows with mask[r] != 0. Returns Σ_masked nll / normalizer
// and writes grad = (softmax - onehot) / normalizer on masked rows, 0 elsewhere. The
// normalizer is the global count of masked rows so per-rank losses add up.
double masked_log_softmax_nll(ConstMatrixView logits, std::span<const std::int32_t> labels,
                              std::span<const std::uint8_t> mask, double normalizer,
                              MatrixView grad);
// Number of masked rows whose argmax (first maximum) equals the label.
std::int64_t argmax_correct(ConstMatrixView logits, std::span<const std::int32_t> labels,
                            std::span<const std::uint8_t> mask);

// Row i of packed (row_codec_bytes(codec, rows.cols) bytes) = row list[i] of rows (row i
// when list is null), i < n, in `codec`. kInt8 rounds row i with the random numbers of
// row_key(key, its row index in rows): the same key and rows give the same bytes.
void encode_rows(ConstMatrixView rows, const LocalId* list, std::int64_t n, RowCodec codec,
                 std::uint64_t key, void* packed);
// rows[list[i]] (row i when list is null) = (or +=) decoded packed row i. list holds no
// row twice.
void decode_rows(const void* packed, RowCodec codec, const LocalId* list, std::int64_t n,
                 MatrixView rows, bool add);

struct AdamConfig {
  float lr = 0.01f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;  // L2 added to the gradient, as torch.optim.Adam
};

// One Adam update; step counts from 1 (bias correction uses it).
void adam_step(std::span<float> param, std::span<const float> grad, std::span<float> m,
               std::span<float> v, const AdamConfig& config, std::int64_t step);

}  // namespace strata::kernels
