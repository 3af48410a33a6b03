// The arithmetic of the row codecs (core/row_codec.h), one element or row at a time, for
// the CPU kernels and the CUDA kernels alike: both compile this header (nvcc without
// fused multiply-add), so a row encodes to the same bytes on either device.
#pragma once
#include <cstdint>
#include <cstring>

#include "strata/core/random.h"

namespace strata::kernels::row_codec {

STRATA_HOST_DEVICE inline std::uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
#endif
}

STRATA_HOST_DEVICE inline float float_of(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, 4);
  return x;
#endif
}

STRATA_HOST_DEVICE inline float from_bf16(std::uint16_t h) {
  return float_of(static_cast<std::uint32_t>(h) << 16);
}

// Round to nearest, ties to even; NaN stays NaN (quiet), infinities stay. Branch-free, so
// a loop of it vectorizes.
STRATA_HOST_DEVICE inline std::uint16_t to_bf16(float x) {
  const std::uint32_t u = bits_of(x);
  const std::uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  const std::uint32_t quiet_nan = (u >> 16) | 0x40u;
  return static_cast<std::uint16_t>((u & 0x7FFFFFFFu) > 0x7F800000u ? quiet_nan : rounded);
}

// The largest bfloat16 not above x (x finite): truncation, one step further for a
// negative x that truncation moved up.
STRATA_HOST_DEVICE inline std::uint16_t bf16_down(float x) {
  auto h = static_cast<std::uint16_t>(bits_of(x) >> 16);
  if (from_bf16(h) > x) ++h;  // negative: one more unit of magnitude
  return h;
}

// The smallest bfloat16 not below x >= 0.
STRATA_HOST_DEVICE inline std::uint16_t bf16_up(float x) {
  auto h = static_cast<std::uint16_t>(bits_of(x) >> 16);
  if (from_bf16(h) < x) ++h;
  return h;
}

// An int8 row's header from its lowest and highest value: low rounded down and the step
// (high - low) / 255 rounded up, so that [low, low + 255 · step] covers the row. A row
// holding NaN or inf gets a NaN low, and decodes to NaN (the numeric guard then sees it).
struct Int8Header {
  std::uint16_t low, step;
};

constexpr std::uint16_t kNanHeader = 0x7FC0u;  // a quiet NaN's bfloat16

STRATA_HOST_DEVICE inline Int8Header int8_header(float lowest, float highest, bool finite) {
  if (!finite) return {kNanHeader, 0};
  lowest += 0.0f;  // -0 becomes +0: devices that pick either zero as the minimum agree
  highest += 0.0f;
  const std::uint16_t low = bf16_down(lowest);
  return {low, bf16_up((highest - from_bf16(low)) / 255.0f)};
}

// 1 / step, or 0 for a row of one value (every q is then 0).
STRATA_HOST_DEVICE inline float inverse_step(Int8Header h) {
  const float step = from_bf16(h.step);
  return step > 0.0f ? 1.0f / step : 0.0f;
}

// The key of row `row` of a message keyed `key` (core/random.h's hash_key).
STRATA_HOST_DEVICE inline std::uint64_t row_key(std::uint64_t key, std::int64_t row) {
  return hash_key(key, static_cast<std::uint64_t>(row));
}

// Stochastic rounding draws one random byte per value: byte column % 4 of
// word_hash(row_key, column / 4), a 32-bit hash (Wellons' lowbias32) that vectorizes: one
// serves 4 columns, and 8 of them fill one AVX2 register.
STRATA_HOST_DEVICE inline std::uint32_t word_hash(std::uint64_t row_key, std::int64_t word) {
  std::uint32_t x = static_cast<std::uint32_t>(row_key) ^ static_cast<std::uint32_t>(word) ^
                    static_cast<std::uint32_t>(row_key >> 32) * 0x9E3779B9u;
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

STRATA_HOST_DEVICE inline std::uint32_t random_byte(std::uint64_t row_key, std::int64_t column) {
  return (word_hash(row_key, column >> 2) >> (8 * (column & 3))) & 0xFFu;
}

// q = floor((x - low) / step + u), u = (byte + 0.5) / 256: E[decoded] = x to within
// step / 512. x is finite and at least low, so the sum is not negative and truncation
// floors it.
STRATA_HOST_DEVICE inline std::uint8_t quantize(float x, float low, float inverse,
                                                std::uint32_t byte) {
  const float u = (static_cast<float>(byte) + 0.5f) * (1.0f / 256.0f);
  const float t = (x - low) * inverse + u;
  return static_cast<std::uint8_t>(static_cast<int>(t < 255.0f ? t : 255.0f));
}

STRATA_HOST_DEVICE inline float dequantize(std::uint8_t q, float low, float step) {
  return low + static_cast<float>(q) * step;
}

}  // namespace strata::kernels::row_codec
