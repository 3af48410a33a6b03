// How gemm_tn_accumulate sums over rows (gradient_sums.cpp), shared with the fused
// backward pass that adds a layer's weight gradient (fused_layer.cpp): groups of
// kGroupRows rows in parallel, each into a partial of its own, the partials then added to
// the sums in group order, so the bits depend on neither the thread count nor the caller.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "strata/core/matrix.h"

namespace strata::kernels {

// Rows summed into one partial, in block order, by one thread: a divisor of
// ConvStage::kSliceRows (4,096), the rows a recomputed layer sums its gradient over per call.
constexpr std::int64_t kGroupRows = 1024;

// out += alpha aᵀ b over rows [begin, end), in double.
void group_product(ConstMatrixView a, ConstMatrixView b, std::int64_t begin, std::int64_t end,
                   double alpha, double* out);

// sums += the partials group(begin, end, partial) adds to zeroed partials of sums' size,
// one per group of rows [0, rows), groups in parallel, added in group order.
template <typename Group>
void accumulate_by_groups(std::int64_t rows, std::span<double> sums, Group&& group) {
  constexpr std::int64_t kPartialDoubles = std::int64_t{1} << 20;  // a wave's partials: 8 MB
  const std::int64_t groups = (rows + kGroupRows - 1) / kGroupRows;
  const auto size = static_cast<std::int64_t>(sums.size());
  if (groups == 0 || size == 0) return;
  const std::int64_t wave = std::clamp<std::int64_t>(kPartialDoubles / size, 1, groups);
  std::vector<double> partials(static_cast<std::size_t>(wave * size));
  for (std::int64_t first = 0; first < groups; first += wave) {
    const std::int64_t n = std::min(wave, groups - first);
#pragma omp parallel for schedule(static) if (n > 1)
    for (std::int64_t i = 0; i < n; ++i) {
      double* partial = partials.data() + i * size;
      std::fill(partial, partial + size, 0.0);
      const std::int64_t begin = (first + i) * kGroupRows;
      group(begin, std::min(rows, begin + kGroupRows), partial);
    }
#pragma omp parallel for schedule(static) if (n > 1 && size >= 4096)
    for (std::int64_t k = 0; k < size; ++k)
      for (std::int64_t i = 0; i < n; ++i) sums[k] += partials[i * size + k];
  }
}

}  // namespace strata::kernels
