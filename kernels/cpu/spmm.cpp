// CPU SpMM: rows in parallel, each row summed in CSR order (deterministic per row).
//
// Per row, the output is built in column tiles held in registers: each tile starts as
// beta · y (or 0), then adds value · x[col, tile] edge by edge in CSR order, and is
// stored once. That is the same order of operations as y = beta · y; y += v · x per
// edge, without the load and store of y per edge. Tiles are 8, 4, 2 or 1 vectors (128 to
// 16 floats with AVX-512, 64 to 8 with AVX2, 32 to 4 with SSE2), a scalar tail covers the
// rest. Upcoming x rows are prefetched, since random gathers of x rows, not arithmetic,
// bound this kernel. Threads get contiguous row ranges of equal nnz + rows, so each
// streams its part of the CSR and y; a few ranges per thread, taken dynamically, absorb a
// core slowed by other work.
// On CPUs with AVX2 and FMA the rows run in 256-bit code (FMA rounds once per edge, so
// results differ in the last bit from the SSE2 code); with AVX-512, in 512-bit code that
// makes the same FMAs lane by lane (the same bits as the 256-bit code; 8% faster where
// the gathered rows come from L2, as on an RCM-numbered graph). STRATA_SPMM_ISA=sse2|avx2
// in the environment caps the choice (the tests use it to cover every path).
// x may be bf16 (stored historical embeddings): a vector of its values is widened to fp32
// as it is loaded, so the arithmetic, and every bit of y, is that of x decoded.
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "strata/kernels/kernels.h"
#include "strata/kernels/row_codec_math.h"

namespace strata::kernels {
namespace {

// A vector of floats as the ISA has them (V) and the same for unaligned access (U).
// H: as many bf16 values, unaligned; W: as many 32-bit integers (H widened).
struct Sse2 {
  using V = float __attribute__((vector_size(16)));
  using U = float __attribute__((vector_size(16), aligned(4), may_alias));
  using H = std::uint16_t __attribute__((vector_size(8), aligned(2), may_alias));
  using W = std::uint32_t __attribute__((vector_size(16)));
};
struct Avx2 {
  using V = float __attribute__((vector_size(32)));
  using U = float __attribute__((vector_size(32), aligned(4), may_alias));
  using H = std::uint16_t __attribute__((vector_size(16), aligned(2), may_alias));
  using W = std::uint32_t __attribute__((vector_size(32)));
};
struct Avx512 {
  using V = float __attribute__((vector_size(64)));
  using U = float __attribute__((vector_size(64), aligned(4), may_alias));
  using H = std::uint16_t __attribute__((vector_size(32), aligned(2), may_alias));
  using W = std::uint32_t __attribute__((vector_size(64)));
};
template <typename Isa>
constexpr std::int64_t kLanes = sizeof(typename Isa::V) / sizeof(float);
#define STRATA_INLINE inline __attribute__((always_inline))  // compiled for each caller's ISA
constexpr EdgeOffset kPrefetchDistance = 16;                 // edges ahead
constexpr int kPartsPerThread = 8;  // nnz-balanced row ranges, taken dynamically

// acc += v · one vector of x's values from p: fp32 as stored, or bf16 widened (its bits
// the high half). (No vector is returned: that would change the ABI per ISA.)
template <typename Isa>
STRATA_INLINE void add_scaled(typename Isa::V& acc, float v, const float* p) {
  acc += v * *reinterpret_cast<const typename Isa::U*>(p);
}
template <typename Isa>
STRATA_INLINE void add_scaled(typename Isa::V& acc, float v, const std::uint16_t* p) {
  using W = typename Isa::W;
  const W bits = __builtin_convertvector(*reinterpret_cast<const typename Isa::H*>(p), W) << 16;
  acc += v * (typename Isa::V)bits;  // a vector cast keeps the bits
}
STRATA_INLINE float scalar(float v) {
  return v;
}
STRATA_INLINE float scalar(std::uint16_t h) {
  return row_codec::from_bf16(h);
}

// Prefetches the part [c0, c0 + len) of x's row for the edge kPrefetchDistance ahead.
template <typename X>
STRATA_INLINE void prefetch_row(CsrView a, X x, EdgeOffset e, std::int64_t c0, std::int64_t len) {
  const EdgeOffset ahead = std::min(e + kPrefetchDistance, a.offsets[a.rows] - 1);
  const LocalId col = a.indices[ahead];
  const char* p = reinterpret_cast<const char*>(x.row(col) + c0);
  const auto bytes = len * static_cast<std::int64_t>(sizeof(*x.data));
  for (std::int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
  if (a.col_scale != nullptr && c0 == 0) __builtin_prefetch(a.col_scale + col);
}

// Columns [c0, c0 + K · lanes) of row r, entry e valued value(e).
template <typename Isa, int K, typename X, typename Value>
STRATA_INLINE void row_tile(CsrView a, X x, LocalId r, std::int64_t c0, float* out, float beta,
                            Value value) {
  auto* tile = reinterpret_cast<typename Isa::U*>(out);
  typename Isa::V acc[K] = {};
  if (beta != 0.0f)
    for (int k = 0; k < K; ++k) acc[k] = beta * tile[k];
  for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e) {
    prefetch_row(a, x, e, c0, K * kLanes<Isa>);
    const float v = value(e);
    const auto* src = x.row(a.indices[e]) + c0;
    for (int k = 0; k < K; ++k) add_scaled<Isa>(acc[k], v, src + k * kLanes<Isa>);
  }
  for (int k = 0; k < K; ++k) tile[k] = acc[k];
}

// The same with a's values stored, factored (row_scale[r] · col_scale[c], as CsrView::value
// forms them) or a row's own: one loop for each, without a test an entry.
template <typename Isa, int K, typename X>
STRATA_INLINE void row_tile(CsrView a, X x, LocalId r, std::int64_t c0, float* out, float beta) {
  if (a.values != nullptr)
    return row_tile<Isa, K>(a, x, r, c0, out, beta, [&](EdgeOffset e) { return a.values[e]; });
  const float row = a.row_scale != nullptr ? a.row_scale[r] : 1.0f;
  if (a.col_scale == nullptr)
    return row_tile<Isa, K>(a, x, r, c0, out, beta, [&](EdgeOffset) { return row; });
  row_tile<Isa, K>(a, x, r, c0, out, beta,
                   [&](EdgeOffset e) { return row * a.col_scale[a.indices[e]]; });
}

// Columns [c0, c0 + len), len < 16 (one vector of the widest ISA).
template <typename X>
STRATA_INLINE void row_tail(CsrView a, X x, LocalId r, std::int64_t c0, std::int64_t len,
                            float* out, float beta) {
  float acc[16];
  for (std::int64_t c = 0; c < len; ++c) acc[c] = beta == 0.0f ? 0.0f : beta * out[c];
  for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e) {
    const float value = a.value(r, e);
    const auto* src = x.row(a.indices[e]) + c0;
    for (std::int64_t c = 0; c < len; ++c) acc[c] += value * scalar(src[c]);
  }
  for (std::int64_t c = 0; c < len; ++c) out[c] = acc[c];
}

// One output row: tiles of 8 vectors, then at most one of 4, 2 and 1, then the tail.
template <typename Isa, typename X>
STRATA_INLINE void spmm_row(CsrView a, X x, MatrixView y, LocalId r, float beta) {
  constexpr std::int64_t n = kLanes<Isa>;
  float* out = y.row(r);
  const std::int64_t w = x.cols;
  std::int64_t c = 0;
  for (; c + 8 * n <= w; c += 8 * n) row_tile<Isa, 8>(a, x, r, c, out + c, beta);
  if (c + 4 * n <= w) row_tile<Isa, 4>(a, x, r, c, out + c, beta), c += 4 * n;
  if (c + 2 * n <= w) row_tile<Isa, 2>(a, x, r, c, out + c, beta), c += 2 * n;
  if (c + n <= w) row_tile<Isa, 1>(a, x, r, c, out + c, beta), c += n;
  if (c < w) row_tail(a, x, r, c, w - c, out + c, beta);
}

// First row of part `part` of `parts`, balancing nnz + rows (a row costs its edges plus
// the store of its output). Offsets need not start at 0 (a row block of a larger CSR).
LocalId part_begin(CsrView a, int part, int parts) {
  const EdgeOffset base = a.offsets[0];
  const auto total = static_cast<double>(a.offsets[a.rows] - base + a.rows);
  const auto target = static_cast<EdgeOffset>(total * part / parts);
  LocalId lo = 0, hi = a.rows;
  while (lo < hi) {
    const LocalId mid = lo + (hi - lo) / 2;
    if (a.offsets[mid] - base + mid < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

template <typename X>
void spmm_rows(CsrView a, X x, MatrixView y, LocalId begin, LocalId end, float beta) {
  for (LocalId r = begin; r < end; ++r) spmm_row<Sse2>(a, x, y, r, beta);
}

// The same loop with 256-bit vectors and FMA, for CPUs that have them.
template <typename X>
__attribute__((target("avx2,fma"))) void spmm_rows_avx2(CsrView a, X x, MatrixView y, LocalId begin,
                                                        LocalId end, float beta) {
  for (LocalId r = begin; r < end; ++r) spmm_row<Avx2>(a, x, y, r, beta);
}

template <typename X>
__attribute__((target("avx512f,avx2,fma"))) void spmm_rows_avx512(CsrView a, X x, MatrixView y,
                                                                  LocalId begin, LocalId end,
                                                                  float beta) {
  for (LocalId r = begin; r < end; ++r) spmm_row<Avx512>(a, x, y, r, beta);
}

template <typename X>
using RowsFn = void (*)(CsrView, X, MatrixView, LocalId, LocalId, float);

// The widest code this CPU runs, capped by STRATA_SPMM_ISA.
template <typename X>
RowsFn<X> rows_for_this_cpu() {
  static const bool has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  static const bool has_avx512 = has_avx2 && __builtin_cpu_supports("avx512f");
  const char* cap = std::getenv("STRATA_SPMM_ISA");
  const std::string_view isa = cap != nullptr ? cap : "avx512";
  if (has_avx512 && isa == "avx512") return spmm_rows_avx512<X>;
  if (has_avx2 && isa != "sse2") return spmm_rows_avx2<X>;
  return spmm_rows<X>;
}

template <typename X>
void spmm_any(CsrView a, X x, MatrixView y, float beta) {
  STRATA_CHECK(x.rows == a.cols, "spmm: x has ", x.rows, " rows, a has ", a.cols, " cols");
  STRATA_CHECK(y.rows == a.rows, "spmm: y has ", y.rows, " rows, a has ", a.rows);
  STRATA_CHECK(y.cols == x.cols, "spmm: widths differ: x ", x.cols, ", y ", y.cols);
  if (a.rows == 0 || x.cols == 0) return;
  const RowsFn<X> rows = rows_for_this_cpu<X>();
  const int parts = omp_get_max_threads() * kPartsPerThread;
#pragma omp parallel for schedule(dynamic, 1)
  for (int part = 0; part < parts; ++part)
    rows(a, x, y, part_begin(a, part, parts), part_begin(a, part + 1, parts), beta);
}

}  // namespace

void spmm(CsrView a, ConstMatrixView x, MatrixView y, float beta) {
  spmm_any(a, x, y, beta);
}

void spmm(CsrView a, Bf16RowsView x, MatrixView y, float beta) {
  spmm_any(a, x, y, beta);
}

}  // namespace strata::kernels
