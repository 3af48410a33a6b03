// The CUDA backend's attention and ELU operations (attention.h), on a stream.
#pragma once
#include "strata/kernels/attention.h"

namespace strata::kernels::cuda_attention {

void softmax(const EdgeBlock& g, int heads, ConstMatrixView s_dst, ConstMatrixView s_src,
             float slope, float* alpha, void* stream);
void aggregate(const EdgeBlock& g, int heads, const float* alpha, const AttentionDropout& dropout,
               ConstMatrixView h, MatrixView out, void* stream);
void backward(const EdgeBlock& g, int heads, const float* alpha, const AttentionDropout& dropout,
              ConstMatrixView s_dst, ConstMatrixView s_src, float slope, ConstMatrixView grad_out,
              ConstMatrixView h, float* grad_z, MatrixView grad_s_dst, void* stream);
void scatter(const EdgeBlock& g, int heads, const float* alpha, const AttentionDropout& dropout,
             ConstMatrixView grad_out, const float* grad_z, MatrixView grad_h,
             MatrixView grad_s_src, void* stream);
void elu_forward(ConstMatrixView in, MatrixView out, void* stream);
void elu_backward(ConstMatrixView out, ConstMatrixView grad_out, MatrixView grad_in, void* stream);

}  // namespace strata::kernels::cuda_attention
