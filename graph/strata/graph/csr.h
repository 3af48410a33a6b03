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
  const float* values = nullptr;        // null: entry (r, c) is row_scale[r] · col_scale[c]
  const float* row_scale = nullptr;     // rows entries; null: every one 1
  const float* col_scale = nullptr;     // cols entries; null: every one 1
  // offsets[0] is 0 but in a host view of a row block of a larger CSR, whose indices and
  // values are the whole's and row_scale starts at the block's first row (the CPU kernels
  // take it; device backends copy a block).
  EdgeOffset nnz() const { return offsets[rows] - offsets[0]; }
  // Entry e (of row r): values[e], or row_scale[r] · col_scale[c], an absent scale being 1.
  // One rounding either way, so a product stored as a value has the same bits.
  float value(LocalId r, EdgeOffset e) const {
    if (values != nullptr) return values[e];
    const float row = row_scale != nullptr ? row_scale[r] : 1.0f;
    return col_scale != nullptr ? row * col_scale[indices[e]] : row;
  }
};

struct Csr {
  LocalId rows = 0;
  LocalId cols = 0;
  std::vector<EdgeOffset> offsets{0};
  std::vector<LocalId> indices;
  std::vector<float> values;  // empty: unweighted, or factored
  // A factored matrix (values empty): entry (r, c) is row_scale[r] · col_scale[c], an empty
  // scale being all ones. D^-1/2 (A + I) D^-1/2 keeps 4 bytes a row and a column (its
  // degrees' inverse roots) instead of 4 bytes an entry.
  std::vector<float> row_scale, col_scale;

  EdgeOffset nnz() const { return static_cast<EdgeOffset>(indices.size()); }
  bool weighted() const { return !values.empty() || !row_scale.empty() || !col_scale.empty(); }
  float value(LocalId r, EdgeOffset e) const { return view().value(r, e); }
  EdgeOffset degree(LocalId r) const { return offsets[r + 1] - offsets[r]; }
  std::span<const LocalId> neighbors(LocalId r) const {
    return {indices.data() + offsets[r], static_cast<std::size_t>(degree(r))};
  }
  CsrView view() const {
    const auto data = [](const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); };
    return {rows,           cols, offsets.data(), indices.data(), data(values), data(row_scale),
            data(col_scale)};
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

// scale[ids[0]], scale[ids[1]], ...: a factored matrix's scales of the rows or columns ids
// names, for a matrix renumbered or cut to them (none where scale is none).
template <typename Id>
std::vector<float> scales_at(const std::vector<float>& scale, std::span<const Id> ids) {
  if (scale.empty()) return {};
  std::vector<float> out(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) out[i] = scale[static_cast<std::size_t>(ids[i])];
  return out;
}

// Rows [begin, end) of a where they lie (offsets into a's arrays, as CsrView allows).
CsrView rows_view(const Csr& a, LocalId begin, LocalId end);

// Every entry's value, in entry order (a factored matrix's products, an unweighted one's
// ones): for a backend that needs them stored.
std::vector<float> entry_values(CsrView a);

// A factored matrix with each entry's value stored instead (the same bits; a multiply reads
// them in entry order instead of a column's scale an entry: faster, 4 bytes an entry more).
void store_values(Csr& a);

// Â = D^-1/2 (A + I) D^-1/2 over the rows of `adjacency`, factored (row and column scales).
// degree_plus_one[c] is the degree of column c's vertex in the global graph plus one (the
// self-loop), so a partition normalizes exactly like the whole graph. Self-loops are added to the
// rows r < adjacency.rows with column r (owned-first numbering).
Csr gcn_normalize(const Csr& adjacency, std::span<const float> degree_plus_one);

// A + I over the rows of `adjacency`, every entry 1 (GIN's sum over a vertex and its
// neighbours); self-loops as gcn_normalize adds them.
Csr sum_with_self_loops(const Csr& adjacency);

// Ā = D^-1 A over the rows of `adjacency` (the mean over each row's neighbours, no
// self-loop; a row without neighbours stays empty), as row scales. degree_plus_one[r] is row r's
// global degree plus one, as gcn_normalize takes it.
Csr mean_normalize(const Csr& adjacency, std::span<const float> degree_plus_one);

// Global degrees plus one of an unpartitioned adjacency.
std::vector<float> degrees_plus_one(const Csr& adjacency);

// The transpose (cols x rows), values or scales carried along.
Csr transpose(const Csr& a);

// a (square) with rows and columns renumbered: row i of the result is row order[i] of a,
// its columns renamed to their new ids and sorted, values or scales carried along (none
// where a has none). order must be a permutation of a's rows.
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
