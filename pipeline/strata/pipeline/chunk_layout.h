// The vertex order of the pipeline mode: vertices renumbered chunk by chunk, so that a
// chunk is a contiguous range of rows in every per-layer buffer, with Â permuted to match
// and, per chunk, the transposed row block that backward scatters gradients through.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/graph/csr.h"

namespace strata {

struct ChunkBlock {
  LocalId begin = 0, end = 0;    // rows [begin, end) in chunk order
  std::vector<LocalId> touched;  // columns the block's rows read, ascending
  Csr transposed;                // |touched| x (end - begin): Â[begin:end, touched]ᵀ
  int chunk = -1;                // the chunk it holds; -1: every row (whole_block)
};

struct ChunkLayout {
  std::vector<GlobalId> order;  // order[i] = original id of the vertex at position i
  Csr a_hat;                    // Â in positions, normalized with the graph's degrees
  std::vector<ChunkBlock> blocks;
  // Fraction of Â's entries in chunk c's rows whose column lies in a chunk after c (those
  // read historical rows when chunks run in index order).
  double later_entry_fraction = 0;
  double earlier_entry_fraction = 0;  // the same when chunks run in reverse order
  int chunks() const { return static_cast<int>(blocks.size()); }
};

// chunk_of[v] in [0, k) for every vertex; an empty chunk is an input error.
ChunkLayout make_chunk_layout(const Csr& adjacency, std::span<const std::int32_t> chunk_of, int k);

// One block covering every row of the layout's Â (exact epochs, evaluation).
ChunkBlock whole_block(const ChunkLayout& layout);

// Rows [begin, end) of a (maybe rectangular) Â as a block with its transposed rows.
ChunkBlock make_row_block(const Csr& a, LocalId begin, LocalId end, int chunk);

// a with rows and columns renumbered: row i of the result is row order[i] of a.
Csr permute_symmetric(const Csr& a, std::span<const GlobalId> order);

// Row block [begin, end) of a CSR as a view (offsets stay absolute).
CsrView row_block(const Csr& a, LocalId begin, LocalId end);
CsrView row_block(CsrView a, LocalId begin, LocalId end);

}  // namespace strata
