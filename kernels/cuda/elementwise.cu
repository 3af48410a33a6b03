// Our CUDA kernels: ReLU, bias, dropout (kernels::dropout's hash, so masks match the
// CPU's bit for bit), the rows of masked softmax cross-entropy, and Adam. One thread per
// element (per row for the loss); grid-stride loops so any size fits one launch.
#include <cuda_runtime.h>

#include <cstdint>

#include "grid.cuh"
#include "launch.h"
#include "strata/core/random.h"  // splitmix64, for host and device

namespace strata::kernels::cuda {
namespace {

__global__ void relu_forward_kernel(const float* in, std::int64_t in_stride, float* out,
                                    std::int64_t out_stride, std::int64_t rows, std::int64_t cols) {
  const std::int64_t n = rows * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = i / cols, c = i % cols;
    const float v = in[r * in_stride + c];
    out[r * out_stride + c] = v > 0.0f ? v : 0.0f;
  }
}

__global__ void relu_backward_kernel(const float* act, std::int64_t act_stride, const float* g,
                                     std::int64_t g_stride, float* out, std::int64_t out_stride,
                                     std::int64_t rows, std::int64_t cols) {
  const std::int64_t n = rows * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = i / cols, c = i % cols;
    out[r * out_stride + c] = act[r * act_stride + c] > 0.0f ? g[r * g_stride + c] : 0.0f;
  }
}

__global__ void add_bias_kernel(float* y, std::int64_t stride, const float* bias, std::int64_t rows,
                                std::int64_t cols) {
  const std::int64_t n = rows * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    y[(i / cols) * stride + i % cols] += bias[i % cols];
}

__global__ void axpy_kernel(float alpha, const float* x, std::int64_t x_stride, float* y,
                            std::int64_t y_stride, std::int64_t rows, std::int64_t cols) {
  const std::int64_t n = rows * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = i / cols, c = i % cols;
    y[r * y_stride + c] += alpha * x[r * x_stride + c];
  }
}

__global__ void scale_kernel(float* x, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                             float alpha) {
  const std::int64_t n = rows * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    x[(i / cols) * stride + i % cols] *= alpha;
}

// Entry (r, c): h = splitmix64(row_key ^ splitmix64(c / 2)), row_key =
// splitmix64(base ^ splitmix64(id)); even columns test the top 24 bits, odd the next 24.
__device__ float dropped(float v, std::int64_t id, std::int64_t c, std::uint64_t base,
                         std::uint32_t threshold, float keep_scale) {
  const std::uint64_t row_key = splitmix64(base ^ splitmix64(static_cast<std::uint64_t>(id)));
  const std::uint64_t h = splitmix64(row_key ^ splitmix64(static_cast<std::uint64_t>(c >> 1)));
  const auto bits = static_cast<std::uint32_t>((c & 1) ? (h >> 16) & 0xFFFFFFull : h >> 40);
  return bits >= threshold ? v * keep_scale : 0.0f;
}

// out = in under the mask (in may be out).
__global__ void dropout_kernel(const float* in, std::int64_t in_stride, float* out,
                               std::int64_t out_stride, std::int64_t rows, std::int64_t cols,
                               const std::int64_t* row_ids, std::uint64_t base,
                               std::uint32_t threshold, float keep_scale) {
  const std::int64_t n = rows * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = i / cols, c = i % cols;
    out[r * out_stride + c] =
        dropped(in[r * in_stride + c], row_ids[r], c, base, threshold, keep_scale);
  }
}

// scale then axpy (mix), axpy then scale (axpy_scale), each rounding as the two kernels do
// (this file is compiled with --fmad=false: no fused multiply-adds).
__global__ void mix_kernel(float alpha, const float* x, std::int64_t x_stride, float beta, float* y,
                           std::int64_t y_stride, std::int64_t rows, std::int64_t cols) {
  const std::int64_t n = rows * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = i / cols, c = i % cols;
    float* v = y + r * y_stride + c;
    *v = *v * beta + alpha * x[r * x_stride + c];
  }
}

__global__ void axpy_scale_kernel(float alpha, float* x, std::int64_t x_stride, float* y,
                                  std::int64_t y_stride, float beta, std::int64_t rows,
                                  std::int64_t cols) {
  const std::int64_t n = rows * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = i / cols, c = i % cols;
    const float v = x[r * x_stride + c];
    y[r * y_stride + c] += alpha * v;
    x[r * x_stride + c] = v * beta;
  }
}

// The same mask over the stored entries of a CSR matrix: entry k is (rows[k], cols[k]).
__global__ void dropout_entries_kernel(const float* raw, float* values, const std::int32_t* rows,
                                       const std::int32_t* cols, std::int64_t nnz,
                                       const std::int64_t* row_ids, std::uint64_t base,
                                       std::uint32_t threshold, float keep_scale) {
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < nnz;
       k += std::int64_t{gridDim.x} * blockDim.x)
    values[k] = dropped(raw[k], row_ids[rows[k]], cols[k], base, threshold, keep_scale);
}

// One thread per row, the CPU's arithmetic in the CPU's order (double accumulation).
__global__ void softmax_nll_rows_kernel(const float* logits, std::int64_t logits_stride,
                                        const std::int32_t* labels, const std::uint8_t* mask,
                                        double inv_norm, float* grad, std::int64_t grad_stride,
                                        std::int64_t rows, std::int64_t cols, double* row_loss,
                                        int* bad_label) {
  for (std::int64_t r = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; r < rows;
       r += std::int64_t{gridDim.x} * blockDim.x) {
    const float* z = logits + r * logits_stride;
    float* g = grad + r * grad_stride;
    row_loss[r] = 0.0;
    if (!mask[r]) {
      for (std::int64_t c = 0; c < cols; ++c) g[c] = 0.0f;
      continue;
    }
    const std::int32_t label = labels[r];
    if (label < 0 || label >= cols) {
      atomicExch(bad_label, 1);
      continue;
    }
    float max = z[0];
    for (std::int64_t c = 1; c < cols; ++c) max = z[c] > max ? z[c] : max;
    double denom = 0.0;
    for (std::int64_t c = 0; c < cols; ++c) denom += exp(static_cast<double>(z[c] - max));
    const double log_denom = log(denom);
    for (std::int64_t c = 0; c < cols; ++c) {
      const double prob = exp(static_cast<double>(z[c] - max) - log_denom);
      g[c] = static_cast<float>((prob - (c == label ? 1.0 : 0.0)) * inv_norm);
    }
    row_loss[r] = log_denom - static_cast<double>(z[label] - max);
  }
}

__global__ void adam_kernel(float* param, const float* grad, float* m, float* v, std::int64_t n,
                            float lr, float beta1, float beta2, float eps, float weight_decay,
                            float correction1, float sqrt_correction2) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const float g = grad[i] + weight_decay * param[i];
    m[i] = beta1 * m[i] + (1.0f - beta1) * g;
    v[i] = beta2 * v[i] + (1.0f - beta2) * g * g;
    const float denom = sqrtf(v[i]) / sqrt_correction2 + eps;
    param[i] -= lr / correction1 * m[i] / denom;
  }
}

}  // namespace

void launch_relu_forward(const float* in, std::int64_t in_stride, float* out,
                         std::int64_t out_stride, std::int64_t rows, std::int64_t cols,
                         void* stream) {
  relu_forward_kernel<<<blocks_for(rows * cols), kThreads, 0, as_stream(stream)>>>(
      in, in_stride, out, out_stride, rows, cols);
}

void launch_relu_backward(const float* act, std::int64_t act_stride, const float* grad_out,
                          std::int64_t grad_out_stride, float* grad_in, std::int64_t grad_in_stride,
                          std::int64_t rows, std::int64_t cols, void* stream) {
  relu_backward_kernel<<<blocks_for(rows * cols), kThreads, 0, as_stream(stream)>>>(
      act, act_stride, grad_out, grad_out_stride, grad_in, grad_in_stride, rows, cols);
}

void launch_add_bias_rows(float* y, std::int64_t stride, const float* bias, std::int64_t rows,
                          std::int64_t cols, void* stream) {
  add_bias_kernel<<<blocks_for(rows * cols), kThreads, 0, as_stream(stream)>>>(y, stride, bias,
                                                                               rows, cols);
}

void launch_axpy(float alpha, const float* x, std::int64_t x_stride, float* y,
                 std::int64_t y_stride, std::int64_t rows, std::int64_t cols, void* stream) {
  if (rows == 0 || cols == 0) return;
  axpy_kernel<<<blocks_for(rows * cols), kThreads, 0, as_stream(stream)>>>(alpha, x, x_stride, y,
                                                                           y_stride, rows, cols);
}

void launch_scale(float* x, std::int64_t stride, std::int64_t rows, std::int64_t cols, float alpha,
                  void* stream) {
  if (rows == 0 || cols == 0) return;
  scale_kernel<<<blocks_for(rows * cols), kThreads, 0, as_stream(stream)>>>(x, stride, rows, cols,
                                                                            alpha);
}

void launch_mix(float alpha, const float* x, std::int64_t x_stride, float beta, float* y,
                std::int64_t y_stride, std::int64_t rows, std::int64_t cols, void* stream) {
  if (rows == 0 || cols == 0) return;
  mix_kernel<<<blocks_for(rows * cols), kThreads, 0, as_stream(stream)>>>(
      alpha, x, x_stride, beta, y, y_stride, rows, cols);
}

void launch_axpy_scale(float alpha, float* x, std::int64_t x_stride, float* y,
                       std::int64_t y_stride, float beta, std::int64_t rows, std::int64_t cols,
                       void* stream) {
  if (rows == 0 || cols == 0) return;
  axpy_scale_kernel<<<blocks_for(rows * cols), kThreads, 0, as_stream(stream)>>>(
      alpha, x, x_stride, y, y_stride, beta, rows, cols);
}

void launch_dropout(const float* in, std::int64_t in_stride, float* out, std::int64_t out_stride,
                    std::int64_t rows, std::int64_t cols, const std::int64_t* row_ids,
                    std::uint64_t base_key, std::uint32_t threshold, float keep_scale,
                    void* stream) {
  dropout_kernel<<<blocks_for(rows * cols), kThreads, 0, as_stream(stream)>>>(
      in, in_stride, out, out_stride, rows, cols, row_ids, base_key, threshold, keep_scale);
}

void launch_dropout_entries(const float* raw, float* values, const std::int32_t* rows,
                            const std::int32_t* cols, std::int64_t nnz, const std::int64_t* row_ids,
                            std::uint64_t base_key, std::uint32_t threshold, float keep_scale,
                            void* stream) {
  if (nnz == 0) return;
  dropout_entries_kernel<<<blocks_for(nnz), kThreads, 0, as_stream(stream)>>>(
      raw, values, rows, cols, nnz, row_ids, base_key, threshold, keep_scale);
}

void launch_softmax_nll_rows(const float* logits, std::int64_t logits_stride,
                             const std::int32_t* labels, const std::uint8_t* mask, double inv_norm,
                             float* grad, std::int64_t grad_stride, std::int64_t rows,
                             std::int64_t cols, double* row_loss, int* bad_label, void* stream) {
  softmax_nll_rows_kernel<<<blocks_for(rows), kThreads, 0, as_stream(stream)>>>(
      logits, logits_stride, labels, mask, inv_norm, grad, grad_stride, rows, cols, row_loss,
      bad_label);
}

void launch_adam(float* param, const float* grad, float* m, float* v, std::int64_t n, float lr,
                 float beta1, float beta2, float eps, float weight_decay, float correction1,
                 float sqrt_correction2, void* stream) {
  adam_kernel<<<blocks_for(n), kThreads, 0, as_stream(stream)>>>(
      param, grad, m, v, n, lr, beta1, beta2, eps, weight_decay, correction1, sqrt_correction2);
}

}  // namespace strata::kernels::cuda
