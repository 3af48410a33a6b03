// The row codecs on the CPU (core/row_codec.h; the arithmetic in row_codec_math.h).
#include <algorithm>
#include <cstring>

#include "strata/core/error.h"
#include "strata/kernels/kernels.h"
#include "strata/kernels/row_codec_math.h"

namespace strata::kernels {
namespace {

using namespace row_codec;

void encode_int8(const float* x, std::int64_t cols, std::uint64_t key, std::byte* out) {
  float lowest = cols > 0 ? x[0] : 0.0f, highest = lowest;
  bool finite = true;
  for (std::int64_t c = 0; c < cols; ++c) {
    lowest = std::min(lowest, x[c]);
    highest = std::max(highest, x[c]);
    finite = finite && std::isfinite(x[c]);
  }
  const Int8Header h = int8_header(lowest, highest, finite);
  std::memcpy(out, &h, sizeof h);
  const float low = from_bf16(h.low), inverse = inverse_step(h);
  auto* q = reinterpret_cast<std::uint8_t*>(out + sizeof h);
  for (std::int64_t c = 0; c < cols; ++c) q[c] = quantize(x[c], low, inverse, key, c);
  std::fill(q + cols, q + row_codec_bytes(RowCodec::kInt8, cols) - sizeof h, std::uint8_t{0});
}

void decode_int8(const std::byte* in, std::int64_t cols, float* y, bool add) {
  Int8Header h;
  std::memcpy(&h, in, sizeof h);
  const float low = from_bf16(h.low), step = from_bf16(h.step);
  const auto* q = reinterpret_cast<const std::uint8_t*>(in + sizeof h);
  for (std::int64_t c = 0; c < cols; ++c) {
    const float v = dequantize(q[c], low, step);
    y[c] = add ? y[c] + v : v;
  }
}

void encode_row(const float* x, std::int64_t cols, RowCodec codec, std::uint64_t key,
                std::byte* out) {
  switch (codec) {
    case RowCodec::kFloat32:
      std::memcpy(out, x, static_cast<std::size_t>(cols) * 4);
      return;
    case RowCodec::kBf16:
      for (std::int64_t c = 0; c < cols; ++c) {
        const std::uint16_t h = to_bf16(x[c]);
        std::memcpy(out + 2 * c, &h, 2);
      }
      return;
    case RowCodec::kInt8:
      encode_int8(x, cols, key, out);
      return;
  }
}

void decode_row(const std::byte* in, std::int64_t cols, RowCodec codec, float* y, bool add) {
  if (codec == RowCodec::kInt8) return decode_int8(in, cols, y, add);
  for (std::int64_t c = 0; c < cols; ++c) {
    float v;
    if (codec == RowCodec::kFloat32) {
      std::memcpy(&v, in + 4 * c, 4);
    } else {
      std::uint16_t h;
      std::memcpy(&h, in + 2 * c, 2);
      v = from_bf16(h);
    }
    y[c] = add ? y[c] + v : v;
  }
}

}  // namespace

void encode_rows(ConstMatrixView rows, const LocalId* list, std::int64_t n, RowCodec codec,
                 std::uint64_t key, void* packed) {
  const std::int64_t bytes = row_codec_bytes(codec, rows.cols);
  auto* out = static_cast<std::byte*>(packed);
#pragma omp parallel for schedule(static) if (n * rows.cols > 65536)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r = list ? list[i] : i;
    encode_row(rows.row(r), rows.cols, codec, row_key(key, r), out + i * bytes);
  }
}

void decode_rows(const void* packed, RowCodec codec, const LocalId* list, std::int64_t n,
                 MatrixView rows, bool add) {
  const std::int64_t bytes = row_codec_bytes(codec, rows.cols);
  const auto* in = static_cast<const std::byte*>(packed);
#pragma omp parallel for schedule(static) if (n * rows.cols > 65536)
  for (std::int64_t i = 0; i < n; ++i)
    decode_row(in + i * bytes, rows.cols, codec, rows.row(list ? list[i] : i), add);
}

}  // namespace strata::kernels
