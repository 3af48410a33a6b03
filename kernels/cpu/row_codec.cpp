// The row codecs on the CPU (core/row_codec.h; the arithmetic in row_codec_math.h).
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "strata/kernels/kernels.h"
#include "strata/kernels/row_codec_math.h"

namespace strata::kernels {
namespace {

using namespace row_codec;

// The row loops are also compiled for AVX2 and picked at load time where the CPU has it
// (SSE2 alone packs 32-bit lanes into 16 and 8 bits slowly); the row functions are inlined
// into both clones (STRATA_INLINE). No FMA: the same bytes either way.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define STRATA_ROW_LOOPS __attribute__((target_clones("avx2", "default")))
#else
#define STRATA_ROW_LOOPS
#endif
#define STRATA_INLINE [[gnu::always_inline]] inline

constexpr std::int64_t kMaxRandom = 256;  // columns quantized per pass (a multiple of 4)

// Eight floats as one value (vector extensions, GCC and clang): the header's pass in
// 8 lanes, lanes chosen by masks (x < y is a lane mask of all ones or zeros).
typedef float Float8 __attribute__((vector_size(32)));
typedef std::int32_t Int8x __attribute__((vector_size(32)));

// The row's lowest and highest value, and whether every value is finite (x · 0 is NaN
// exactly for NaN and inf), in one branch-free pass.
STRATA_INLINE Int8Header header_of(const float* x, std::int64_t cols) {
  const float first = cols > 0 ? x[0] : 0.0f;
  Float8 lo = first - Float8{}, hi = lo, poison{};
  std::int64_t c = 0;
  for (; c + 8 <= cols; c += 8) {
    Float8 v;
    std::memcpy(&v, x + c, sizeof v);
    const Int8x below = (v < lo);  // lane masks; blends by hand, as a vector ?: is GCC's only
    const Int8x above = (v > hi);
    lo = reinterpret_cast<Float8>((reinterpret_cast<Int8x>(v) & below) |
                                  (reinterpret_cast<Int8x>(lo) & ~below));
    hi = reinterpret_cast<Float8>((reinterpret_cast<Int8x>(v) & above) |
                                  (reinterpret_cast<Int8x>(hi) & ~above));
    poison += v * 0.0f;
  }
  float l[8], h[8], p[8];
  std::memcpy(l, &lo, sizeof l);
  std::memcpy(h, &hi, sizeof h);
  std::memcpy(p, &poison, sizeof p);
  for (int j = 1; j < 8; ++j) {
    l[0] = l[j] < l[0] ? l[j] : l[0];
    h[0] = h[j] > h[0] ? h[j] : h[0];
    p[0] += p[j];
  }
  for (; c < cols; ++c) {
    l[0] = x[c] < l[0] ? x[c] : l[0];
    h[0] = x[c] > h[0] ? x[c] : h[0];
    p[0] += x[c] * 0.0f;
  }
  return int8_header(l[0], h[0], p[0] == 0.0f);
}

STRATA_INLINE void encode_int8(const float* x, std::int64_t cols, std::uint64_t key,
                               std::byte* out) {
  const Int8Header h = header_of(x, cols);
  std::memcpy(out, &h, sizeof h);
  auto* q = reinterpret_cast<std::uint8_t*>(out + sizeof h);
  const std::int64_t padded = row_codec_bytes(RowCodec::kInt8, cols) - 4;
  if (h.low == kNanHeader) {  // decodes to NaN whatever the bytes
    std::fill(q, q + padded, std::uint8_t{0});
    return;
  }
  // The random words first, read as bytes (random_byte's order on a little-endian
  // machine), then one vectorizable pass.
  static_assert(std::endian::native == std::endian::little);
  std::uint32_t words[kMaxRandom / 4];
  const float low = from_bf16(h.low), inverse = inverse_step(h);
  for (std::int64_t c0 = 0; c0 < padded; c0 += kMaxRandom) {
    const std::int64_t n = std::min(kMaxRandom, padded - c0);
    for (std::int64_t w = 0; w < n / 4; ++w) words[w] = word_hash(key, c0 / 4 + w);
    const auto* random = reinterpret_cast<const std::uint8_t*>(words);  // bytes may alias
    const std::int64_t valid = std::clamp<std::int64_t>(cols - c0, 0, n);
    for (std::int64_t c = 0; c < valid; ++c)
      q[c0 + c] = quantize(x[c0 + c], low, inverse, random[c]);
    std::fill(q + c0 + valid, q + c0 + n, std::uint8_t{0});
  }
}

STRATA_INLINE void decode_int8(const std::byte* in, std::int64_t cols, float* y, bool add) {
  Int8Header h;
  std::memcpy(&h, in, sizeof h);
  const float low = from_bf16(h.low), step = from_bf16(h.step);
  const auto* q = reinterpret_cast<const std::uint8_t*>(in + sizeof h);
  for (std::int64_t c = 0; c < cols; ++c) {
    const float v = dequantize(q[c], low, step);
    y[c] = add ? y[c] + v : v;
  }
}

STRATA_INLINE void encode_row(const float* x, std::int64_t cols, RowCodec codec, std::uint64_t key,
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

STRATA_INLINE void decode_row(const std::byte* in, std::int64_t cols, RowCodec codec, float* y,
                              bool add) {
  if (codec == RowCodec::kInt8) return decode_int8(in, cols, y, add);
  if (codec == RowCodec::kBf16) {
    const auto* h = reinterpret_cast<const std::uint16_t*>(in);
    for (std::int64_t c = 0; c < cols; ++c) y[c] = add ? y[c] + from_bf16(h[c]) : from_bf16(h[c]);
    return;
  }
  const auto* v = reinterpret_cast<const float*>(in);
  for (std::int64_t c = 0; c < cols; ++c) y[c] = add ? y[c] + v[c] : v[c];
}

// Listed rows are scattered over memory, and an int8 row's work depends on all of its
// values before the next row starts: fetching rows ahead keeps memory busy meanwhile.
constexpr std::int64_t kAhead = 4;

void prefetch_row(ConstMatrixView rows, std::int64_t r) {
  const char* p = reinterpret_cast<const char*>(rows.row(r));
  for (std::int64_t b = 0; b < rows.cols * 4; b += 64) __builtin_prefetch(p + b);
}

// Rows [begin, end) of encode_rows and decode_rows: one call per thread, so the AVX2
// choice is made once per call, not per row.
STRATA_ROW_LOOPS void encode_range(ConstMatrixView rows, const LocalId* list, std::int64_t begin,
                                   std::int64_t end, RowCodec codec, std::uint64_t key,
                                   std::byte* out) {
  const std::int64_t bytes = row_codec_bytes(codec, rows.cols);
  for (std::int64_t i = begin; i < end; ++i) {
    const std::int64_t r = list ? list[i] : i;
    if (i + kAhead < end) prefetch_row(rows, list ? list[i + kAhead] : i + kAhead);
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
