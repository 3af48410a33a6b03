// Helpers for bench_kernels: vertex orderings, the SpMM kernel as it was before its
// tiled rewrite (kept for side-by-side runs), and a STREAM triad.
#pragma once
#include <vector>

#include "strata/core/matrix.h"
#include "strata/graph/csr.h"

namespace strata::bench {

// An ordering lists old vertex ids in their new order: order[new_id] = old_id.
using Order = std::vector<LocalId>;

// Hubs first (degree descending, ties by id).
Order degree_order(const Csr& a);
// Reverse Cuthill-McKee: BFS from a least-degree vertex per component, neighbours taken
// in degree order, then reversed. Keeps neighbours' ids close (small bandwidth).
Order rcm_order(const Csr& a);
// A seeded random permutation: destroys whatever locality the ids had.
Order random_order(LocalId n, std::uint64_t seed);

// The row-parallel kernel with a read-modify-write of y per edge (schedule dynamic, 64).
void spmm_baseline(CsrView a, ConstMatrixView x, MatrixView y, float beta);

// `count` row ids drawn uniformly from [0, rows) with a fixed seed.
std::vector<LocalId> random_rows(std::int64_t count, LocalId rows, std::uint64_t seed);

// The sum of x's rows listed in `rows` (each thread into its own accumulator): SpMM's
// gather of one x row per nonzero with no reuse to exploit, and no CSR or y traffic.
float sum_rows(ConstMatrixView x, const std::vector<LocalId>& rows);

// Best-of-`repeats` STREAM triad a = b + 3 c over `n` floats per array, in GB/s.
double stream_triad_gbs(std::size_t n, int repeats);

}  // namespace strata::bench
