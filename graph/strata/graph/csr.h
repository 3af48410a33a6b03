// Compressed sparse rows: the owning Csr and the trivially copyable CsrView for kernels.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/core/types.h"

namespace strata {

struct CsrView {
  LocalId rows = 0;
  LocalId cols = 0;
  const EdgeOffset* offsets = nullptr;  // rows + 1 entries
  const LocalId* indices = nullptr;     // offsets[rows] entries
  const float* values = nullptr;        // may be null: every value is 1
  // offsets[0] is 0 but in a host view of a row block of a larger CSR, whose indices and
  // values are the whole's (the CPU kernels take it; device backends copy a block).
  EdgeOffset nnz() const { return offsets[rows] - offsets[0]; }
};

struct Csr {
  LocalId rows = 0;
  LocalId cols = 0;
  std::vector<EdgeOffset> offsets{0};
  std::vector<LocalId> indices;
  std::vector<float> values;  // empty: unweighted

  EdgeOffset nnz() const { return static_cast<EdgeOffset>(indices.size()); }
  EdgeOffset degree(LocalId r) const { return offsets[r + 1] - offsets[r]; }
  std::span<const LocalId> neighbors(LocalId r) const {
    return {indices.data() + offsets[r], static_cast<std::size_t>(degree(r))};
  }
  CsrView view() const {
    return {rows, cols, offsets.data(), indices.data(), values.empty() ? nullptr : values.data()};
  }
};

struct Edge {
  GlobalId src;
  GlobalId dst;
};

struct BuildOptions {
  bool symmetrize = true;
  bool drop_self_loops = true;
  bool drop_duplicates = true;
};

// Builds an n-vertex adjacency from an edge list; rows sorted by column.
// Throws an input error naming the edge if an id is outside [0, n).
Csr build_csr(GlobalId n, std::span<const Edge> edges, const BuildOptions& options);

// Â = D^-1/2 (A + I) D^-1/2 over the rows of `adjacency`. degree_plus_one[c] is the
// degree of column c's vertex in the global graph plus one (the self-loop), so a
// partition normalizes exactly like the whole graph. Self-loops are added to the rows
// r < adjacency.rows with column r (owned-first numbering).
Csr gcn_normalize(const Csr& adjacency, std::span<const float> degree_plus_one);

// A + I over the rows of `adjacency`, every entry 1 (GIN's sum over a vertex and its
// neighbours); self-loops as gcn_normalize adds them.
Csr sum_with_self_loops(const Csr& adjacency);

// Ā = D^-1 A over the rows of `adjacency` (the mean over each row's neighbours, no
// self-loop; a row without neighbours stays empty). degree_plus_one[r] is row r's global
// degree plus one, as gcn_normalize takes it.
Csr mean_normalize(const Csr& adjacency, std::span<const float> degree_plus_one);

// Global degrees plus one of an unpartitioned adjacency.
std::vector<float> degrees_plus_one(const Csr& adjacency);

// The transpose (cols x rows), values carried along.
Csr transpose(const Csr& a);

// a (square) with rows and columns renumbered: row i of the result is row order[i] of a,
// its columns renamed to their new ids and sorted, values carried along (none where a has
// none). order must be a permutation of a's rows.
Csr permute_symmetric(const Csr& a, std::span<const LocalId> order);
Csr permute_symmetric(const Csr& a, std::span<const GlobalId> order);

// Whether a equals its transpose entry for entry, values included, with every row sorted by
// column (then a product with a is bit for bit one with its transpose). False for a matrix
// whose rows are not sorted, symmetric or not.
bool is_symmetric(const Csr& a);

// Whether every row of a holds the entries (column and value) of the same row of b, in any
// order: with b = transpose(a), whether a is symmetric even where its rows are not sorted.
bool equal_up_to_row_order(const Csr& a, const Csr& b);

// Input validation: offsets monotone, indices in range, sizes consistent.
void validate(const Csr& a, const char* what);

}  // namespace strata
