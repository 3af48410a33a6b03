// Per-entry kernels of graph attention (GAT, Velickovic et al. 2018), over the entries of
// a block of rows of the propagation matrix's structure (its values are not read). With
// K heads of width F, a row of H holds the heads side by side (K · F columns) and an
// entry's attention weights are K floats; per-entry arrays hold a block's entries by
// their number within the block (EdgeBlock::offsets start at 0); a caller keeping one
// array for every row's entries hands the kernels its part from first_entry on.
//   z_e = s_dst[r] + s_src[c]  (per head),  alpha = softmax over r's entries of
//   LeakyReLU(z), out[r] = Σ_e drop(alpha_e) H[c]  (each head over its own F columns).
// Every kernel is deterministic: each output is summed in one fixed order.
#pragma once
#include <cstdint>

#include "strata/core/matrix.h"
#include "strata/core/types.h"

namespace strata::kernels {

// The entries of a block's rows, and the same entries column by column (the backward
// scatters into columns: a gather over by_column, without atomics). All in the memory of
// the backend whose kernels read it.
struct EdgeBlock {
  std::int64_t rows = 0;
  std::int64_t entries = 0;             // offsets[rows] (on the host)
  EdgeOffset first_entry = 0;           // the block's first entry among every row's (host)
  const EdgeOffset* offsets = nullptr;  // rows + 1 from 0: row r's are [offsets[r], offsets[r+1])
  const LocalId* columns = nullptr;     // the column of each entry, by entry number
  std::int64_t touched = 0;             // the columns the block's entries reach
  const LocalId* touched_columns = nullptr;
  const EdgeOffset* touched_offsets = nullptr;  // touched + 1 positions in by_column
  const EdgeOffset* by_column = nullptr;        // entry numbers, column by column, rows ascending
  const LocalId* by_column_rows = nullptr;      // the block row of each of those entries
  const GlobalId* row_ids = nullptr;            // global ids of the block's rows
  const GlobalId* column_ids = nullptr;         // and of every column (the dropout's keys)
};

// Dropout of the attention weights: entry (row, column, head) is kept with probability
// 1 - p, keyed by global ids, so that every partition draws the same mask
// (attention_keys.h); kept weights are scaled by 1 / (1 - p). p = 0: none.
struct AttentionDropout {
  float p = 0.0f;
  std::uint64_t seed = 0;
  std::int64_t epoch = 0;
  std::int32_t layer = 0;
};

// alpha (entries x heads) = softmax by row of LeakyReLU(s_dst[r] + s_src[c], slope);
// s_dst: the block's rows x heads, s_src: columns x heads.
void attention_softmax(const EdgeBlock& g, int heads, ConstMatrixView s_dst, ConstMatrixView s_src,
                       float slope, float* alpha);
// out (rows x heads·F) = Σ_e drop(alpha_e) h[c] per head, h: columns x heads·F.
void attention_aggregate(const EdgeBlock& g, int heads, const float* alpha,
                         const AttentionDropout& dropout, ConstMatrixView h, MatrixView out);
// From d loss / d out (grad_out, the block's rows x heads·F): d loss / d z of every entry
// into grad_z (entries x heads), and grad_s_dst (rows x heads) = Σ_e d z_e.
void attention_backward(const EdgeBlock& g, int heads, const float* alpha,
                        const AttentionDropout& dropout, ConstMatrixView s_dst,
                        ConstMatrixView s_src, float slope, ConstMatrixView grad_out,
                        ConstMatrixView h, float* grad_z, MatrixView grad_s_dst);
// For each column c the block reaches: grad_h[c] += Σ_e drop(alpha_e) grad_out[r] per head,
// and grad_s_src[c] += Σ_e grad_z_e (grad_h: columns x heads·F, grad_s_src: columns x heads).
void attention_scatter(const EdgeBlock& g, int heads, const float* alpha,
                       const AttentionDropout& dropout, ConstMatrixView grad_out,
                       const float* grad_z, MatrixView grad_h, MatrixView grad_s_src);

// ELU (alpha 1): out = in > 0 ? in : exp(in) - 1; out may alias in. Its backward from the
// output: grad_in = grad_out · (out > 0 ? 1 : out + 1).
void elu_forward(ConstMatrixView in, MatrixView out);
void elu_backward(ConstMatrixView out, ConstMatrixView grad_out, MatrixView grad_in);

}  // namespace strata::kernels
