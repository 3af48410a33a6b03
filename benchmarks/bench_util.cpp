#include "bench_util.h"

#include <algorithm>
#include <numeric>

#include "strata/core/random.h"
#include "strata/core/timer.h"

namespace strata::bench {

Order degree_order(const Csr& a) {
  Order order(static_cast<std::size_t>(a.rows));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](LocalId u, LocalId v) { return a.degree(u) > a.degree(v); });
  return order;
}

namespace {

// Appends the BFS order of start's component to `order` (Cuthill-McKee).
void cuthill_mckee_from(const Csr& a, LocalId start, std::vector<char>& seen, Order& order) {
  auto head = order.size();
  order.push_back(start);
  seen[static_cast<std::size_t>(start)] = 1;
  for (; head < order.size(); ++head) {
    const auto first = order.size();
    for (const LocalId v : a.neighbors(order[head])) {
      if (seen[static_cast<std::size_t>(v)]) continue;
      seen[static_cast<std::size_t>(v)] = 1;
      order.push_back(v);
    }
    std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(first), order.end(),
                     [&](LocalId u, LocalId v) { return a.degree(u) < a.degree(v); });
  }
}

}  // namespace

Order rcm_order(const Csr& a) {
  Order starts = degree_order(a);
  std::reverse(starts.begin(), starts.end());  // least degree first
  std::vector<char> seen(static_cast<std::size_t>(a.rows), 0);
  Order order;
  order.reserve(static_cast<std::size_t>(a.rows));
  for (const LocalId s : starts)
    if (!seen[static_cast<std::size_t>(s)]) cuthill_mckee_from(a, s, seen, order);
  std::reverse(order.begin(), order.end());
  return order;
}

Order random_order(LocalId n, std::uint64_t seed) {
  Order order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Rng rng(seed);
  for (std::size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[rng.below(static_cast<std::uint64_t>(i))]);
  return order;
}

void spmm_baseline(CsrView a, ConstMatrixView x, MatrixView y, float beta) {
  const std::int64_t w = x.cols;
#pragma omp parallel for schedule(dynamic, 64)
  for (std::int64_t r = 0; r < a.rows; ++r) {
    float* out = y.row(r);
    for (std::int64_t c = 0; c < w; ++c) out[c] = beta == 0.0f ? 0.0f : out[c] * beta;
    for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e) {
      const float value = a.value(static_cast<LocalId>(r), e);
      const float* __restrict src = x.row(a.indices[e]);
#pragma omp simd
      for (std::int64_t c = 0; c < w; ++c) out[c] += value * src[c];
    }
  }
}

std::vector<LocalId> random_rows(std::int64_t count, LocalId rows, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<LocalId> ids(static_cast<std::size_t>(count));
  for (LocalId& id : ids) id = static_cast<LocalId>(rng.below(static_cast<std::uint64_t>(rows)));
  return ids;
}

float sum_rows(ConstMatrixView x, const std::vector<LocalId>& rows) {
  const std::int64_t n = static_cast<std::int64_t>(rows.size());
  float total = 0.0f;
#pragma omp parallel reduction(+ : total)
  {
    std::vector<float> acc(static_cast<std::size_t>(x.cols), 0.0f);
#pragma omp for schedule(static)
    for (std::int64_t e = 0; e < n; ++e) {
      const float* row = x.row(rows[static_cast<std::size_t>(e)]);
      for (std::int64_t j = 0; j < x.cols; ++j) acc[static_cast<std::size_t>(j)] += row[j];
    }
    for (const float v : acc) total += v;
  }
  return total;
}

double stream_triad_gbs(std::size_t n, int repeats) {
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 3.0f);
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    Timer t;
#pragma omp parallel for schedule(static)
    for (std::size_t j = 0; j < n; ++j) a[j] = b[j] + 3.0f * c[j];
    best = std::min(best, t.seconds());
  }
  return 3.0 * 4.0 * static_cast<double>(n) / best / 1e9;
}

}  // namespace strata::bench
