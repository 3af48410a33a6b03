// The GPU front end of the elementwise kernels, the loss and Adam: shape checks, then one
// launch on the context's stream (cuda/elementwise.cu), then a check of the launch.
#include <cuda_runtime.h>

#include <cmath>
#include <vector>

#include "cpu/dropout_keys.h"
#include "launch.h"
#include "strata/core/cuda_check.h"
#include "strata/core/error.h"
#include "strata/core/random.h"
#include "strata/kernels/gpu.h"

namespace strata::kernels::gpu {
namespace {

void check_same_shape(DeviceConstView a, DeviceConstView b, const char* what) {
  STRATA_CHECK(a.rows == b.rows && a.cols == b.cols, what, ": shapes ", a.rows, "x", a.cols, " vs ",
               b.rows, "x", b.cols);
}

}  // namespace

DeviceMatrix::DeviceMatrix(std::int64_t rows, std::int64_t cols)
    : rows_(rows), cols_(cols), buffer_(static_cast<std::size_t>(rows * cols) * sizeof(float)) {
  STRATA_CHECK(rows >= 0 && cols >= 0, "DeviceMatrix: shape ", rows, "x", cols);
}

DeviceMatrix DeviceMatrix::upload(ConstMatrixView host, const Context& context) {
  DeviceMatrix m(host.rows, host.cols);
  const auto row_bytes = static_cast<std::size_t>(host.cols) * sizeof(float);
  STRATA_CUDA_CHECK(cudaMemcpy2DAsync(
      m.buffer_.data(), row_bytes, host.data, static_cast<std::size_t>(host.stride) * sizeof(float),
      row_bytes, static_cast<std::size_t>(host.rows), cudaMemcpyHostToDevice,
      static_cast<cudaStream_t>(context.stream())));
  context.synchronize();
  return m;
}

Matrix DeviceMatrix::download(const Context& context) const {
  Matrix host(rows_, cols_);
  buffer_.download(host.data(), static_cast<std::size_t>(host.size()) * sizeof(float), context);
  return host;
}

void relu_forward(const Context& context, DeviceConstView in, DeviceView out) {
  check_same_shape(in, out, "gpu::relu_forward");
  cuda::launch_relu_forward(in.data, in.stride, out.data, out.stride, in.rows, in.cols,
                            context.stream());
  STRATA_CUDA_CHECK(cudaGetLastError());
}

void relu_backward(const Context& context, DeviceConstView out_or_in, DeviceConstView grad_out,
                   DeviceView grad_in) {
  check_same_shape(out_or_in, grad_out, "gpu::relu_backward");
  check_same_shape(grad_out, grad_in, "gpu::relu_backward");
  cuda::launch_relu_backward(out_or_in.data, out_or_in.stride, grad_out.data, grad_out.stride,
                             grad_in.data, grad_in.stride, grad_in.rows, grad_in.cols,
                             context.stream());
  STRATA_CUDA_CHECK(cudaGetLastError());
}

void add_bias_rows(const Context& context, DeviceView y, const float* bias) {
  cuda::launch_add_bias_rows(y.data, y.stride, bias, y.rows, y.cols, context.stream());
  STRATA_CUDA_CHECK(cudaGetLastError());
}

void dropout(const Context& context, DeviceView x, const GlobalId* row_ids, float p,
             std::uint64_t seed, std::int64_t epoch, std::int32_t layer) {
  if (p == 0.0f) return;  // else dropout_copy checks p
  dropout_copy(context, DeviceConstView(x.data, x.rows, x.cols, x.stride), x, row_ids, p, seed,
               epoch, layer);
}

void dropout_copy(const Context& context, DeviceConstView in, DeviceView out,
                  const GlobalId* row_ids, float p, std::uint64_t seed, std::int64_t epoch,
                  std::int32_t layer) {
  check_same_shape(in, out, "gpu::dropout_copy");
  STRATA_CHECK(p >= 0.0f && p < 1.0f, "gpu::dropout_copy: p = ", p);
  if (out.rows == 0 || out.cols == 0) return;
  const std::uint64_t base =
      hash_key(seed, static_cast<std::uint64_t>(epoch), static_cast<std::uint64_t>(layer));
  const float keep_scale = p == 0.0f ? 1.0f : 1.0f / (1.0f - p);  // p 0: every bit kept
  cuda::launch_dropout(in.data, in.stride, out.data, out.stride, out.rows, out.cols, row_ids, base,
                       drop_threshold(p), keep_scale, context.stream());
  STRATA_CUDA_CHECK(cudaGetLastError());
}

double masked_log_softmax_nll(const Context& context, DeviceConstView logits,
                              const std::int32_t* labels, const std::uint8_t* mask,
                              double normalizer, DeviceView grad) {
  check_same_shape(logits, grad, "gpu::masked_log_softmax_nll");
  STRATA_CHECK(normalizer > 0.0, "gpu::masked_log_softmax_nll: normalizer ", normalizer);
  const auto rows = static_cast<std::size_t>(logits.rows);
  DeviceBuffer row_loss(rows * sizeof(double), context), bad(sizeof(int), context);
  bad.zero(context);
  cuda::launch_softmax_nll_rows(logits.data, logits.stride, labels, mask, 1.0 / normalizer,
                                grad.data, grad.stride, logits.rows, logits.cols,
                                static_cast<double*>(row_loss.data()),
                                static_cast<int*>(bad.data()), context.stream());
  STRATA_CUDA_CHECK(cudaGetLastError());
  std::vector<double> losses(rows);
  int bad_label = 0;
  row_loss.download(losses.data(), rows * sizeof(double), context);
  bad.download(&bad_label, sizeof bad_label, context);
  STRATA_CHECK(bad_label == 0, "gpu::masked_log_softmax_nll: a label outside [0, ", logits.cols,
               ")");
  double total = 0.0;
  for (const double l : losses) total += l;
  return total * (1.0 / normalizer);
}

void adam_step(const Context& context, float* param, const float* grad, float* m, float* v,
               std::int64_t n, const AdamConfig& config, std::int64_t step) {
  STRATA_CHECK(step >= 1, "gpu::adam_step: step ", step, " (counts from 1)");
  const double t = static_cast<double>(step);
  const auto correction1 = static_cast<float>(1.0 - std::pow(double{config.beta1}, t));
  const auto correction2 = static_cast<float>(1.0 - std::pow(double{config.beta2}, t));
  cuda::launch_adam(param, grad, m, v, n, config.lr, config.beta1, config.beta2, config.eps,
                    config.weight_decay, correction1, std::sqrt(correction2), context.stream());
  STRATA_CUDA_CHECK(cudaGetLastError());
}

}  // namespace strata::kernels::gpu
