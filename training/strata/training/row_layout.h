// The rows one rank computes and reads: its vertices (every vertex, or one part's) chunk
// by chunk, so that a chunk is a contiguous range of rows in every per-layer buffer, then
// the halo (other parts' neighbours of them), with the propagation matrix's rows over
// those columns and, with several parts, the halo plan, whole and per chunk: at chunk c,
// each layer exchanges only the rows of chunk c.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/graph/csr.h"
#include "strata/layers/block_graph.h"
#include "strata/layers/model.h"
#include "strata/partition/local_graph.h"

namespace strata {

struct RowLayout {
  std::vector<GlobalId> order;  // the global id of every local row: owned, then halo
  LocalId owned = 0, halo = 0;
  // Rows [0, interior) read no halo column and no other part reads them: a layer can
  // compute them whole while the halo travels (interior_first numbers them first).
  LocalId interior = 0;
  Csr a_hat;                  // the propagation matrix's owned rows over owned + halo columns
  std::vector<Block> chunks;  // chunk c's owned rows (some may be empty with several parts)
  int parts = 1;
  HaloPlan whole_plan;                // parts > 1: every halo row
  std::vector<HaloPlan> chunk_plans;  // parts > 1: the rows of the whole plan in chunk c
  // Fraction of Â's entries in chunk c's rows whose column lies in a later chunk (those
  // read history when chunks run in index order), and in an earlier one (reverse order).
  double later_entry_fraction = 0;
  double earlier_entry_fraction = 0;

  int chunk_count() const { return static_cast<int>(chunks.size()); }
  // The global ids of the owned rows, in order.
  std::span<const GlobalId> owned_ids() const {
    return std::span(order).first(static_cast<std::size_t>(owned));
  }
};

// The propagation matrix of adjacency's rows (owned-first numbering: row r is column r),
// normalised with degree_plus_one[c], column c's global degree plus one. GCN's keeps a value
// an entry unless factored (then its row and column scales, Csr::row_scale); GraphSAGE's
// mean keeps a scale a row, GIN's sum none (neither costs time).
Csr propagation_matrix(const Csr& adjacency, std::span<const float> degree_plus_one,
                       Propagation propagation, bool factored = false);

// Every vertex, chunk by chunk: chunk_of[v] in [0, k); an empty chunk is an input error.
// factored: as propagation_matrix takes it, for every layout.
RowLayout whole_graph_layout(const Csr& adjacency, std::span<const std::int32_t> chunk_of, int k,
                             Propagation propagation, bool factored = false);
// The vertices of part `part` of part_of (in [0, parts)), chunk by chunk.
RowLayout part_layout(const Csr& adjacency, std::span<const std::int32_t> part_of, int parts,
                      int part, std::span<const std::int32_t> chunk_of, int k,
                      Propagation propagation, bool factored = false);
// A graph-mode shard's rows (already numbered owned first), as one chunk.
RowLayout shard_layout(const LocalGraph& graph, int parts, Propagation propagation,
                       bool factored = false);

// Renumbers the owned rows of a one-chunk layout with a halo so that the interior ones come
// first (each group keeps its order); halo columns keep their ids and every row of Â keeps
// its entries' order, so each aggregation sums exactly as before. Returns the old local id
// of every new owned row: the rank's per-row inputs (features, labels) follow it.
std::vector<GlobalId> interior_first(RowLayout& layout);

// Whether order[i] == i for every i.
bool is_identity(std::span<const GlobalId> order);

// Rows [b.begin, b.end) of a as a CSR of their own (offsets from zero, every column kept),
// and their transpose over the columns they touch: touched (ascending) and Â[b, touched]ᵀ.
Csr row_block_copy(const Csr& a, const Block& b);
// The same with each entry's value stored instead of a's scales (what a device multiplies:
// a block's copy of every column's scale would cost a pass over the columns per block).
Csr row_block_with_values(const Csr& a, const Block& b);
// a's entries in columns [begin, end), renumbered from zero: every row, end - begin columns.
Csr column_range(const Csr& a, LocalId begin, LocalId end);
// [left | right]: every row's entries of left, then right's with columns after left's
// (column_range's inverse: the rows of a are those of column_range(a, 0, k) joined with
// column_range(a, k, a.cols) where every row lists its columns below k first).
Csr join_columns(const Csr& left, const Csr& right);
Csr transposed_block(const Csr& a, const Block& b, std::vector<LocalId>& touched);

}  // namespace strata
