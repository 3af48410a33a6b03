// Launchers of the attention kernels (attention.cu; attention.h says what each computes).
// Plain pointers and sizes: nvcc compiles this header as C++17. `dropout_base` and
// `threshold` are attention_keys.h's; keep_scale 0 means no dropout.
#pragma once
#include <cstdint>

namespace strata::kernels::cuda {

struct EdgeArrays {
  std::int64_t rows;
  const std::int64_t* offsets;
  const std::int32_t* columns;
  std::int64_t touched;
  const std::int32_t* touched_columns;
  const std::int64_t* touched_offsets;
  const std::int64_t* by_column;
  const std::int32_t* by_column_rows;
  const std::int64_t* row_ids;
  const std::int64_t* column_ids;
};

struct DropArrays {
  std::uint64_t base;
  std::uint32_t threshold;
  float keep_scale;  // 0: no dropout
};

struct Rows {  // a row-major view: data, stride in floats
  float* data;
  std::int64_t stride;
};

void launch_attention_softmax(const EdgeArrays& g, int heads, Rows s_dst, Rows s_src, float slope,
                              float* alpha, void* stream);
void launch_attention_aggregate(const EdgeArrays& g, int heads, std::int64_t width,
                                const float* alpha, DropArrays drop, Rows h, Rows out,
                                void* stream);
void launch_attention_backward(const EdgeArrays& g, int heads, std::int64_t width,
                               const float* alpha, DropArrays drop, Rows s_dst, Rows s_src,
                               float slope, Rows grad_out, Rows h, float* grad_z, Rows grad_s_dst,
                               void* stream);
void launch_attention_scatter(const EdgeArrays& g, int heads, std::int64_t width,
                              const float* alpha, DropArrays drop, Rows grad_out,
                              const float* grad_z, Rows grad_h, Rows grad_s_src, void* stream);
void launch_elu_forward(Rows in, Rows out, std::int64_t rows, std::int64_t cols, void* stream);
void launch_elu_backward(Rows out, Rows grad_out, Rows grad_in, std::int64_t rows,
                         std::int64_t cols, void* stream);

}  // namespace strata::kernels::cuda
