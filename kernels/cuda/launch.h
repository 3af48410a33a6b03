// The CUDA kernels' launchers, for the host front end (gpu_ops.cpp). Plain pointers and
// sizes only: this header is compiled by nvcc as C++17 and by g++ as C++20. `stream` is a
// cudaStream_t. Launchers check nothing; the front end validates shapes first.
#pragma once
#include <cstdint>

namespace strata::kernels::cuda {

// y = a · x + beta · y, a a device CSR (wide: 64-bit offsets and indices, else 32-bit),
// x `width` bf16 values a row, packed.
void launch_spmm_bf16(const void* offsets, const void* indices, bool wide, const float* values,
                      std::int64_t rows, const std::uint16_t* x, std::int64_t width, float* y,
                      std::int64_t y_stride, float beta, void* stream);
void launch_relu_forward(const float* in, std::int64_t in_stride, float* out,
                         std::int64_t out_stride, std::int64_t rows, std::int64_t cols,
                         void* stream);
void launch_relu_backward(const float* act, std::int64_t act_stride, const float* grad_out,
                          std::int64_t grad_out_stride, float* grad_in, std::int64_t grad_in_stride,
                          std::int64_t rows, std::int64_t cols, void* stream);
void launch_add_bias_rows(float* y, std::int64_t stride, const float* bias, std::int64_t rows,
                          std::int64_t cols, void* stream);
// y += alpha · x; x *= alpha.
void launch_axpy(float alpha, const float* x, std::int64_t x_stride, float* y,
                 std::int64_t y_stride, std::int64_t rows, std::int64_t cols, void* stream);
void launch_scale(float* x, std::int64_t stride, std::int64_t rows, std::int64_t cols, float alpha,
                  void* stream);
// y = y · beta + alpha · x, and y += alpha · x then x *= beta (kernels.h's mix, axpy_scale).
void launch_mix(float alpha, const float* x, std::int64_t x_stride, float beta, float* y,
                std::int64_t y_stride, std::int64_t rows, std::int64_t cols, void* stream);
void launch_axpy_scale(float alpha, float* x, std::int64_t x_stride, float* y,
                       std::int64_t y_stride, float beta, std::int64_t rows, std::int64_t cols,
                       void* stream);
// out = in under the mask (in may be out); base_key = hash_key(seed, epoch, layer),
// threshold = ceil(p · 2^24) (dropout_keys.h).
void launch_dropout(const float* in, std::int64_t in_stride, float* out, std::int64_t out_stride,
                    std::int64_t rows, std::int64_t cols, const std::int64_t* row_ids,
                    std::uint64_t base_key, std::uint32_t threshold, float keep_scale,
                    void* stream);
// values[k] = raw[k] under the dropout mask of entry (rows[k], cols[k]), the row keyed
// by row_ids[rows[k]] (as launch_dropout's).
void launch_dropout_entries(const float* raw, float* values, const std::int32_t* rows,
                            const std::int32_t* cols, std::int64_t nnz, const std::int64_t* row_ids,
                            std::uint64_t base_key, std::uint32_t threshold, float keep_scale,
                            void* stream);
// Writes each masked row's nll (double) into row_loss, 0 elsewhere, and its gradient.
void launch_softmax_nll_rows(const float* logits, std::int64_t logits_stride,
                             const std::int32_t* labels, const std::uint8_t* mask, double inv_norm,
                             float* grad, std::int64_t grad_stride, std::int64_t rows,
                             std::int64_t cols, double* row_loss, int* bad_label, void* stream);
void launch_adam(float* param, const float* grad, float* m, float* v, std::int64_t n, float lr,
                 float beta1, float beta2, float eps, float weight_decay, float correction1,
                 float sqrt_correction2, void* stream);

// correct[r] = 1 where mask[r] and the row's first maximum is at labels[r], else 0.
void launch_argmax_rows(const float* logits, std::int64_t stride, std::int64_t rows,
                        std::int64_t cols, const std::int32_t* labels, const std::uint8_t* mask,
                        std::int32_t* correct, void* stream);
// out[k] = values[source[k]], k < n (a transpose's values from the original's).
void launch_gather_values(const float* values, const std::int64_t* source, std::int64_t n,
                          float* out, void* stream);
// out[rows[k] * stride + cols[k]] = values[k], k < nnz (distinct entries).
void launch_scatter_entries(const float* values, const std::int32_t* rows, const std::int32_t* cols,
                            std::int64_t nnz, float* out, std::int64_t stride, void* stream);
// Rows in a wire format (kernels.h's encode_rows and decode_rows); codec is a RowCodec's
// value, list may be null (rows 0 .. n - 1).
void launch_encode_rows(const float* rows, std::int64_t stride, std::int64_t cols,
                        const std::int32_t* list, std::int64_t n, int codec, std::uint64_t key,
                        void* packed, void* stream);
void launch_decode_rows(const void* packed, int codec, const std::int32_t* list, std::int64_t n,
                        float* rows, std::int64_t stride, std::int64_t cols, bool add,
                        void* stream);

}  // namespace strata::kernels::cuda
