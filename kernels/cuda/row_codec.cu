// The row codecs on the GPU (core/row_codec.h), with the CPU's arithmetic
// (row_codec_math.h, compiled without fused multiply-add), so both encode a row to the
// same bytes. int8: one warp per row (its lowest and highest value by shuffles, then the
// quantized columns); float32 and bf16: one thread per element.
#include <cuda_runtime.h>

#include <cstdint>

#include "grid.cuh"
#include "launch.h"
#include "strata/core/row_codec.h"
#include "strata/kernels/row_codec_math.h"

namespace strata::kernels::cuda {
namespace {

using namespace row_codec;

constexpr int kWarp = 32;

__device__ std::int64_t row_of(const std::int32_t* list, std::int64_t i) {
  return list ? list[i] : i;
}

__global__ void encode_wide_kernel(const float* rows, std::int64_t stride, std::int64_t cols,
                                   const std::int32_t* list, std::int64_t n, bool bf16,
                                   void* packed) {
  const std::int64_t total = n * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const float x = rows[row_of(list, i / cols) * stride + i % cols];
    if (bf16)
      static_cast<std::uint16_t*>(packed)[i] = to_bf16(x);
    else
      static_cast<float*>(packed)[i] = x;
  }
}

__global__ void decode_wide_kernel(const void* packed, bool bf16, const std::int32_t* list,
                                   std::int64_t n, float* rows, std::int64_t stride,
                                   std::int64_t cols, bool add) {
  const std::int64_t total = n * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const float v = bf16 ? from_bf16(static_cast<const std::uint16_t*>(packed)[i])
                         : static_cast<const float*>(packed)[i];
    float& dst = rows[row_of(list, i / cols) * stride + i % cols];
    dst = add ? dst + v : v;
  }
}

__global__ void encode_int8_kernel(const float* rows, std::int64_t stride, std::int64_t cols,
                                   const std::int32_t* list, std::int64_t n, std::uint64_t key,
                                   std::uint8_t* packed) {
  const int lane = threadIdx.x % kWarp;
  const std::int64_t row_bytes = 4 + (cols + 3) / 4 * 4;
  for (std::int64_t i = (blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x) / kWarp; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x / kWarp) {
    const std::int64_t r = row_of(list, i);
    const float* x = rows + r * stride;
    float lowest = cols > 0 ? x[0] : 0.0f, highest = lowest;
    bool finite = true;
    for (std::int64_t c = lane; c < cols; c += kWarp) {
      lowest = fminf(lowest, x[c]);
      highest = fmaxf(highest, x[c]);
      finite = finite && isfinite(x[c]);
    }
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
      lowest = fminf(lowest, __shfl_xor_sync(0xFFFFFFFFu, lowest, offset));
      highest = fmaxf(highest, __shfl_xor_sync(0xFFFFFFFFu, highest, offset));
    }
    finite = __all_sync(0xFFFFFFFFu, finite);
    const Int8Header h = int8_header(lowest, highest, finite);
    std::uint8_t* out = packed + i * row_bytes;
    if (lane == 0) *reinterpret_cast<Int8Header*>(out) = h;
    const float low = from_bf16(h.low), inverse = inverse_step(h);
    const std::uint64_t k = row_key(key, r);
    for (std::int64_t c = lane; c < row_bytes - 4; c += kWarp)
      out[4 + c] = c < cols && finite ? quantize(x[c], low, inverse, random_byte(k, c)) : 0;
  }
}

__global__ void decode_int8_kernel(const std::uint8_t* packed, const std::int32_t* list,
                                   std::int64_t n, float* rows, std::int64_t stride,
                                   std::int64_t cols, bool add) {
  const std::int64_t row_bytes = 4 + (cols + 3) / 4 * 4;
  const std::int64_t total = n * cols;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < total;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t row = i / cols, c = i % cols;
    const std::uint8_t* in = packed + row * row_bytes;
    const Int8Header h = *reinterpret_cast<const Int8Header*>(in);
    const float v = dequantize(in[4 + c], from_bf16(h.low), from_bf16(h.step));
    float& dst = rows[row_of(list, row) * stride + c];
    dst = add ? dst + v : v;
  }
}

}  // namespace

void launch_encode_rows(const float* rows, std::int64_t stride, std::int64_t cols,
                        const std::int32_t* list, std::int64_t n, int codec, std::uint64_t key,
                        void* packed, void* stream) {
  if (n == 0) return;
  if (codec == static_cast<int>(RowCodec::kInt8)) {
    encode_int8_kernel<<<blocks_for(n * kWarp), kThreads, 0, as_stream(stream)>>>(
        rows, stride, cols, list, n, key, static_cast<std::uint8_t*>(packed));
    return;
  }
  if (cols == 0) return;
  encode_wide_kernel<<<blocks_for(n * cols), kThreads, 0, as_stream(stream)>>>(
      rows, stride, cols, list, n, codec == static_cast<int>(RowCodec::kBf16), packed);
}

void launch_decode_rows(const void* packed, int codec, const std::int32_t* list, std::int64_t n,
                        float* rows, std::int64_t stride, std::int64_t cols, bool add,
                        void* stream) {
  if (n == 0 || cols == 0) return;
  if (codec == static_cast<int>(RowCodec::kInt8)) {
    decode_int8_kernel<<<blocks_for(n * cols), kThreads, 0, as_stream(stream)>>>(
        static_cast<const std::uint8_t*>(packed), list, n, rows, stride, cols, add);
    return;
  }
  decode_wide_kernel<<<blocks_for(n * cols), kThreads, 0, as_stream(stream)>>>(
      packed, codec == static_cast<int>(RowCodec::kBf16), list, n, rows, stride, cols, add);
}

}  // namespace strata::kernels::cuda
