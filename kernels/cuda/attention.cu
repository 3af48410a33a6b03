// The CUDA attention kernels (attention.h): the CPU's arithmetic in the CPU's order, one
// thread per (row, head), per (row, column) of the output, or per (column, column of the
// gradient), so that every output is summed over its entries in entry order.
#include <cuda_runtime.h>

#include <cstdint>

#include "attention_launch.h"
#include "grid.cuh"
#include "strata/kernels/attention_keys.h"

namespace strata::kernels::cuda {
namespace {

__device__ float leaky(float z, float slope) {
  return z > 0.0f ? z : slope * z;
}

// The mask as the CPU draws it (attention_keys.h): a row's key, an entry's, then a bit per
// head; nothing is hashed without dropout.
__device__ std::uint64_t row_key(const DropArrays& d, std::int64_t row) {
  return d.keep_scale == 0.0f ? 0 : attention_row_key(d.base, row);
}
__device__ std::uint64_t entry_key(const DropArrays& d, std::uint64_t row, std::int64_t column) {
  return d.keep_scale == 0.0f ? 0 : attention_entry_key(row, column);
}
__device__ float keep(const DropArrays& d, std::uint64_t entry, int head) {
  if (d.keep_scale == 0.0f) return 1.0f;
  return attention_head_kept(entry, head, d.threshold) ? d.keep_scale : 0.0f;
}

#define GRID_STRIDE(i, n)                                                             \
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < (n); \
       i += std::int64_t{gridDim.x} * blockDim.x)

__global__ void softmax_kernel(EdgeArrays g, int heads, Rows s_dst, Rows s_src, float slope,
                               float* alpha) {
  GRID_STRIDE(i, g.rows * heads) {
    const std::int64_t r = i / heads;
    const int k = static_cast<int>(i % heads);
    const std::int64_t begin = g.offsets[r], end = g.offsets[r + 1];
    const float dst = s_dst.data[r * s_dst.stride + k];
    float top = -INFINITY;
    for (std::int64_t e = begin; e < end; ++e) {
      const float v = leaky(dst + s_src.data[g.columns[e] * s_src.stride + k], slope);
      alpha[e * heads + k] = v;
      top = fmaxf(top, v);
    }
    float sum = 0.0f;
    for (std::int64_t e = begin; e < end; ++e) {
      const float v = expf(alpha[e * heads + k] - top);
      alpha[e * heads + k] = v;
      sum += v;
    }
    const float inverse = 1.0f / sum;
    for (std::int64_t e = begin; e < end; ++e) alpha[e * heads + k] *= inverse;
  }
}

__global__ void aggregate_kernel(EdgeArrays g, int heads, std::int64_t width, const float* alpha,
                                 DropArrays drop, Rows h, Rows out) {
  const std::int64_t cols = heads * width;
  GRID_STRIDE(i, g.rows * cols) {
    const std::int64_t r = i / cols, f = i % cols;
    const int k = static_cast<int>(f / width);
    const std::uint64_t row = row_key(drop, g.row_ids[r]);
    float sum = 0.0f;
    for (std::int64_t e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
      const std::int32_t c = g.columns[e];
      const float w = alpha[e * heads + k] * keep(drop, entry_key(drop, row, g.column_ids[c]), k);
      sum += w * h.data[c * h.stride + f];
    }
    out.data[r * out.stride + f] = sum;
  }
}

__global__ void backward_kernel(EdgeArrays g, int heads, std::int64_t width, const float* alpha,
                                DropArrays drop, Rows s_dst, Rows s_src, float slope, Rows grad_out,
                                Rows h, float* grad_z, Rows grad_s_dst) {
  GRID_STRIDE(i, g.rows * heads) {
    const std::int64_t r = i / heads;
    const int k = static_cast<int>(i % heads);
    const std::int64_t begin = g.offsets[r], end = g.offsets[r + 1];
    const float* dy = grad_out.data + r * grad_out.stride;
    const std::uint64_t row = row_key(drop, g.row_ids[r]);
    float weighted = 0.0f;
    for (std::int64_t e = begin; e < end; ++e) {
      const std::int32_t c = g.columns[e];
      const float* src = h.data + c * h.stride;
      float dot = 0.0f;
      for (std::int64_t f = k * width; f < (k + 1) * width; ++f) dot += dy[f] * src[f];
      const float d = dot * keep(drop, entry_key(drop, row, g.column_ids[c]), k);
      grad_z[e * heads + k] = d;
      weighted += alpha[e * heads + k] * d;
    }
    const float dst = s_dst.data[r * s_dst.stride + k];
    float sum = 0.0f;
    for (std::int64_t e = begin; e < end; ++e) {
      const float z = dst + s_src.data[g.columns[e] * s_src.stride + k];
      const float de = alpha[e * heads + k] * (grad_z[e * heads + k] - weighted);
      const float dz = z > 0.0f ? de : slope * de;
      grad_z[e * heads + k] = dz;
      sum += dz;
    }
    grad_s_dst.data[r * grad_s_dst.stride + k] = sum;
  }
}

// Column t's gradient: heads · width values of d h, then heads of d s_src.
__global__ void scatter_kernel(EdgeArrays g, int heads, std::int64_t width, const float* alpha,
                               DropArrays drop, Rows grad_out, const float* grad_z, Rows grad_h,
                               Rows grad_s_src) {
  const std::int64_t cols = heads * width + heads;
  GRID_STRIDE(i, g.touched * cols) {
    const std::int64_t t = i / cols, f = i % cols;
    const std::int32_t c = g.touched_columns[t];
    const bool score = f >= heads * width;
    const int k = static_cast<int>(score ? f - heads * width : f / width);
    float sum = 0.0f;
    for (std::int64_t j = g.touched_offsets[t]; j < g.touched_offsets[t + 1]; ++j) {
      const std::int64_t e = g.by_column[j];
      const std::int32_t r = g.by_column_rows[j];
      if (score) {
        sum += grad_z[e * heads + k];
      } else {
        const std::uint64_t entry = entry_key(drop, row_key(drop, g.row_ids[r]), g.column_ids[c]);
        const float w = alpha[e * heads + k] * keep(drop, entry, k);
        sum += w * grad_out.data[r * grad_out.stride + f];
      }
    }
    if (score)
      grad_s_src.data[c * grad_s_src.stride + k] += sum;
    else
      grad_h.data[c * grad_h.stride + f] += sum;
  }
}

__global__ void elu_forward_kernel(Rows in, Rows out, std::int64_t rows, std::int64_t cols) {
  GRID_STRIDE(i, rows * cols) {
    const std::int64_t r = i / cols, c = i % cols;
    const float x = in.data[r * in.stride + c];
    out.data[r * out.stride + c] = x > 0.0f ? x : expm1f(x);
  }
}

__global__ void elu_backward_kernel(Rows out, Rows grad_out, Rows grad_in, std::int64_t rows,
                                    std::int64_t cols) {
  GRID_STRIDE(i, rows * cols) {
    const std::int64_t r = i / cols, c = i % cols;
    const float y = out.data[r * out.stride + c];
    grad_in.data[r * grad_in.stride + c] =
        grad_out.data[r * grad_out.stride + c] * (y > 0.0f ? 1.0f : y + 1.0f);
  }
}

}  // namespace

void launch_attention_softmax(const EdgeArrays& g, int heads, Rows s_dst, Rows s_src, float slope,
                              float* alpha, void* stream) {
  softmax_kernel<<<blocks_for(g.rows * heads), kThreads, 0, as_stream(stream)>>>(
      g, heads, s_dst, s_src, slope, alpha);
}

void launch_attention_aggregate(const EdgeArrays& g, int heads, std::int64_t width,
                                const float* alpha, DropArrays drop, Rows h, Rows out,
                                void* stream) {
  aggregate_kernel<<<blocks_for(g.rows * heads * width), kThreads, 0, as_stream(stream)>>>(
      g, heads, width, alpha, drop, h, out);
}

void launch_attention_backward(const EdgeArrays& g, int heads, std::int64_t width,
                               const float* alpha, DropArrays drop, Rows s_dst, Rows s_src,
                               float slope, Rows grad_out, Rows h, float* grad_z, Rows grad_s_dst,
                               void* stream) {
  backward_kernel<<<blocks_for(g.rows * heads), kThreads, 0, as_stream(stream)>>>(
      g, heads, width, alpha, drop, s_dst, s_src, slope, grad_out, h, grad_z, grad_s_dst);
}

void launch_attention_scatter(const EdgeArrays& g, int heads, std::int64_t width,
                              const float* alpha, DropArrays drop, Rows grad_out,
                              const float* grad_z, Rows grad_h, Rows grad_s_src, void* stream) {
  scatter_kernel<<<blocks_for(g.touched * (heads * width + heads)), kThreads, 0,
                   as_stream(stream)>>>(g, heads, width, alpha, drop, grad_out, grad_z, grad_h,
                                        grad_s_src);
}

void launch_elu_forward(Rows in, Rows out, std::int64_t rows, std::int64_t cols, void* stream) {
  elu_forward_kernel<<<blocks_for(rows * cols), kThreads, 0, as_stream(stream)>>>(in, out, rows,
                                                                                  cols);
}

void launch_elu_backward(Rows out, Rows grad_out, Rows grad_in, std::int64_t rows,
                         std::int64_t cols, void* stream) {
  elu_backward_kernel<<<blocks_for(rows * cols), kThreads, 0, as_stream(stream)>>>(
      out, grad_out, grad_in, rows, cols);
}

}  // namespace strata::kernels::cuda
