// Checks shapes as the CPU's kernels do, then launches attention.cu's kernels.
#include "cuda_attention.h"

#include "attention_launch.h"
#include "cpu/dropout_keys.h"
#include "strata/core/error.h"
#include "strata/kernels/attention_keys.h"

namespace strata::kernels::cuda_attention {
namespace {

cuda::EdgeArrays arrays(const EdgeBlock& g) {
  return {
      g.rows,      g.offsets,        g.columns, g.touched,   g.touched_columns, g.touched_offsets,
      g.by_column, g.by_column_rows, g.row_ids, g.column_ids};
}

cuda::DropArrays drop(const AttentionDropout& d) {
  STRATA_CHECK(d.p >= 0.0f && d.p < 1.0f, "attention dropout: p = ", d.p);
  if (d.p == 0.0f) return {0, 0, 0.0f};
  return {attention_base_key(d.seed, d.epoch, d.layer), drop_threshold(d.p), 1.0f / (1.0f - d.p)};
}

cuda::Rows rows(ConstMatrixView v) {
  return {const_cast<float*>(v.data), v.stride};
}
cuda::Rows rows(MatrixView v) {
  return {v.data, v.stride};
}

std::int64_t head_width(int heads, ConstMatrixView h, ConstMatrixView out, const char* what) {
  STRATA_CHECK(heads > 0 && h.cols == out.cols && h.cols % heads == 0, what, ": ", heads,
               " heads over ", h.cols, " and ", out.cols, " columns");
  return h.cols / heads;
}

}  // namespace

void softmax(const EdgeBlock& g, int heads, ConstMatrixView s_dst, ConstMatrixView s_src,
             float slope, float* alpha, void* stream) {
  STRATA_CHECK(s_dst.rows == g.rows && s_dst.cols == heads && s_src.cols == heads,
               "attention_softmax: scores ", s_dst.rows, "x", s_dst.cols, " for ", g.rows,
               " rows of ", heads, " heads");
  if (g.rows > 0)
    cuda::launch_attention_softmax(arrays(g), heads, rows(s_dst), rows(s_src), slope, alpha,
                                   stream);
}

void aggregate(const EdgeBlock& g, int heads, const float* alpha, const AttentionDropout& dropout,
               ConstMatrixView h, MatrixView out, void* stream) {
  const std::int64_t width = head_width(heads, h, out, "attention_aggregate");
  if (g.rows > 0)
    cuda::launch_attention_aggregate(arrays(g), heads, width, alpha, drop(dropout), rows(h),
                                     rows(out), stream);
}

void backward(const EdgeBlock& g, int heads, const float* alpha, const AttentionDropout& dropout,
              ConstMatrixView s_dst, ConstMatrixView s_src, float slope, ConstMatrixView grad_out,
              ConstMatrixView h, float* grad_z, MatrixView grad_s_dst, void* stream) {
  const std::int64_t width = head_width(heads, h, grad_out, "attention_backward");
  if (g.rows > 0)
    cuda::launch_attention_backward(arrays(g), heads, width, alpha, drop(dropout), rows(s_dst),
                                    rows(s_src), slope, rows(grad_out), rows(h), grad_z,
                                    rows(grad_s_dst), stream);
}

void scatter(const EdgeBlock& g, int heads, const float* alpha, const AttentionDropout& dropout,
             ConstMatrixView grad_out, const float* grad_z, MatrixView grad_h,
             MatrixView grad_s_src, void* stream) {
  const std::int64_t width = head_width(heads, grad_out, grad_h, "attention_scatter");
  if (g.touched > 0)
    cuda::launch_attention_scatter(arrays(g), heads, width, alpha, drop(dropout), rows(grad_out),
                                   grad_z, rows(grad_h), rows(grad_s_src), stream);
}

void elu_forward(ConstMatrixView in, MatrixView out, void* stream) {
  STRATA_CHECK(in.rows == out.rows && in.cols == out.cols, "elu_forward: shapes differ");
  if (in.rows * in.cols > 0)
    cuda::launch_elu_forward(rows(in), rows(out), in.rows, in.cols, stream);
}

void elu_backward(ConstMatrixView out, ConstMatrixView grad_out, MatrixView grad_in, void* stream) {
  STRATA_CHECK(out.rows == grad_out.rows && out.cols == grad_out.cols && grad_in.rows == out.rows &&
                   grad_in.cols == out.cols,
               "elu_backward: shapes differ");
  if (out.rows * out.cols > 0)
    cuda::launch_elu_backward(rows(out), rows(grad_out), rows(grad_in), out.rows, out.cols, stream);
}

}  // namespace strata::kernels::cuda_attention
