// The row codecs on the CPU (core/row_codec.h; the arithmetic in row_codec_math.h).
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "strata/core/error.h"
#include "strata/kernels/kernels.h"
#include "strata/kernels/row_codec_math.h"

namespace strata::kernels {
namespace {

using namespace row_codec;

// The row loops are also compiled for AVX2 and picked at load time where the CPU has it
// (SSE2 alone packs 32-bit lanes into 16 and 8 bits slowly). No FMA: the same bytes
// either way.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define STRATA_ROW_LOOPS __attribute__((target_clones("avx2", "default")))
#else
#define STRATA_ROW_LOOPS
#endif

constexpr int kLanes = 8;
constexpr std::int64_t kMaxRandom = 256;  // columns quantized per pass (a multiple of 8)  //
                                          // independent accumulators: the loops vectorize

// The row's lowest and highest value, and whether every value is finite (x · 0 is NaN
// exactly for NaN and inf), in one branch-free pass.
Int8Header header_of(const float* x, std::int64_t cols) {
  const float first = cols > 0 ? x[0] : 0.0f;
  float lo[kLanes], hi[kLanes], poison[kLanes];
  for (int j = 0; j < kLanes; ++j) lo[j] = hi[j] = first, poison[j] = 0.0f;
  std::int64_t c = 0;
  for (; c + kLanes <= cols; c += kLanes)
    for (int j = 0; j < kLanes; ++j) {
      const float v = x[c + j];
      lo[j] = v < lo[j] ? v : lo[j];
      hi[j] = v > hi[j] ? v : hi[j];
      poison[j] += v * 0.0f;
    }
  for (; c < cols; ++c) {
    lo[0] = x[c] < lo[0] ? x[c] : lo[0];
    hi[0] = x[c] > hi[0] ? x[c] : hi[0];
    poison[0] += x[c] * 0.0f;
  }
  for (int j = 1; j < kLanes; ++j) {
    lo[0] = lo[j] < lo[0] ? lo[j] : lo[0];
    hi[0] = hi[j] > hi[0] ? hi[j] : hi[0];
    poison[0] += poison[j];
  }
  return int8_header(lo[0], hi[0], poison[0] == 0.0f);
}

void encode_int8(const float* x, std::int64_t cols, std::uint64_t key, std::byte* out) {
  const Int8Header h = header_of(x, cols);
  std::memcpy(out, &h, sizeof h);
  auto* q = reinterpret_cast<std::uint8_t*>(out + sizeof h);
  const std::int64_t padded = row_codec_bytes(RowCodec::kInt8, cols) - 4;
  if (h.low == kNanHeader) {  // decodes to NaN whatever the bytes
    std::fill(q, q + padded, std::uint8_t{0});
    return;
  }
  // The random bytes first (random_byte's order: byte j of a hash is bits 8j..8j+7),
  // then one vectorizable pass.
  std::uint8_t random[kMaxRandom];
  const float low = from_bf16(h.low), inverse = inverse_step(h);
  for (std::int64_t c0 = 0; c0 < padded; c0 += kMaxRandom) {
    const std::int64_t n = std::min<std::int64_t>(kMaxRandom, padded - c0);
    for (std::int64_t c = 0; c < n; c += 8) {
      const std::uint64_t hash = column_hash(key, c0 + c);
      for (int j = 0; j < 8; ++j) random[c + j] = static_cast<std::uint8_t>(random_byte(hash, j));
    }
    const std::int64_t valid = std::clamp<std::int64_t>(cols - c0, 0, n);
    for (std::int64_t c = 0; c < valid; ++c)
      q[c0 + c] = quantize(x[c0 + c], low, inverse, random[c]);
    std::fill(q + c0 + valid, q + c0 + n, std::uint8_t{0});
  }
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
    case RowCodec::kBf16: {
      auto* h = reinterpret_cast<std::uint16_t*>(out);
      for (std::int64_t c = 0; c < cols; ++c) h[c] = to_bf16(x[c]);
      return;
    }
    case RowCodec::kInt8:
      encode_int8(x, cols, key, out);
      return;
  }
}

void decode_row(const std::byte* in, std::int64_t cols, RowCodec codec, float* y, bool add) {
  if (codec == RowCodec::kInt8) return decode_int8(in, cols, y, add);
  if (codec == RowCodec::kBf16) {
    const auto* h = reinterpret_cast<const std::uint16_t*>(in);
    for (std::int64_t c = 0; c < cols; ++c) y[c] = add ? y[c] + from_bf16(h[c]) : from_bf16(h[c]);
    return;
  }
  const auto* v = reinterpret_cast<const float*>(in);
  for (std::int64_t c = 0; c < cols; ++c) y[c] = add ? y[c] + v[c] : v[c];
}

// Rows [begin, end) of encode_rows and decode_rows: one call per thread, so the AVX2
// choice is made once per call, not per row.
STRATA_ROW_LOOPS void encode_range(ConstMatrixView rows, const LocalId* list, std::int64_t begin,
                                   std::int64_t end, RowCodec codec, std::uint64_t key,
                                   std::byte* out) {
  const std::int64_t bytes = row_codec_bytes(codec, rows.cols);
  for (std::int64_t i = begin; i < end; ++i) {
    const std::int64_t r = list ? list[i] : i;
    const std::uint64_t k = codec == RowCodec::kInt8 ? row_key(key, r) : 0;
    encode_row(rows.row(r), rows.cols, codec, k, out + i * bytes);
  }
}

STRATA_ROW_LOOPS void decode_range(const std::byte* in, RowCodec codec, const LocalId* list,
                                   std::int64_t begin, std::int64_t end, MatrixView rows,
                                   bool add) {
  const std::int64_t bytes = row_codec_bytes(codec, rows.cols);
  for (std::int64_t i = begin; i < end; ++i)
    decode_row(in + i * bytes, rows.cols, codec, rows.row(list ? list[i] : i), add);
}

// This thread's share of n rows, in thread order (rows are independent: any split gives
// the same bytes).
std::pair<std::int64_t, std::int64_t> thread_share(std::int64_t n) {
  const std::int64_t t = omp_get_thread_num(), threads = omp_get_num_threads();
  return {n * t / threads, n * (t + 1) / threads};
}

}  // namespace

void encode_rows(ConstMatrixView rows, const LocalId* list, std::int64_t n, RowCodec codec,
                 std::uint64_t key, void* packed) {
#pragma omp parallel if (n * rows.cols > 65536)
  {
    const auto [begin, end] = thread_share(n);
    encode_range(rows, list, begin, end, codec, key, static_cast<std::byte*>(packed));
  }
}

void decode_rows(const void* packed, RowCodec codec, const LocalId* list, std::int64_t n,
                 MatrixView rows, bool add) {
#pragma omp parallel if (n * rows.cols > 65536)
  {
    const auto [begin, end] = thread_share(n);
    decode_range(static_cast<const std::byte*>(packed), codec, list, begin, end, rows, add);
  }
}

}  // namespace strata::kernels
