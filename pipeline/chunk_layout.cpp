#include "strata/pipeline/chunk_layout.h"

#include <algorithm>

#include "strata/core/error.h"

namespace strata {
namespace {

std::vector<GlobalId> chunk_major_order(std::span<const std::int32_t> chunk_of, int k,
                                        std::vector<LocalId>& bounds) {
  std::vector<LocalId> counts(static_cast<std::size_t>(k) + 1, 0);
  for (std::size_t v = 0; v < chunk_of.size(); ++v) {
    STRATA_REQUIRE(chunk_of[v] >= 0 && chunk_of[v] < k, "vertex ", v, " is in chunk ", chunk_of[v],
                   ", outside [0, ", k, ")");
    ++counts[chunk_of[v] + 1];
  }
  for (int c = 0; c < k; ++c) {
    STRATA_REQUIRE(counts[c + 1] > 0, "chunk ", c, " of ", k, " has no vertex");
    counts[c + 1] += counts[c];
  }
  bounds = counts;
  std::vector<GlobalId> order(chunk_of.size());
  for (std::size_t v = 0; v < chunk_of.size(); ++v)
    order[counts[chunk_of[v]]++] = static_cast<GlobalId>(v);
  return order;
}

}  // namespace

Csr permute_symmetric(const Csr& a, std::span<const GlobalId> order) {
  std::vector<LocalId> position(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<LocalId>(i);
  Csr p;
  p.rows = p.cols = a.rows;
  p.offsets.assign(1, 0);
  std::vector<std::pair<LocalId, float>> row;
  for (GlobalId v : order) {
    row.clear();
    for (EdgeOffset e = a.offsets[v]; e < a.offsets[v + 1]; ++e)
      row.emplace_back(position[a.indices[e]], a.values[e]);
    std::sort(row.begin(), row.end());
    for (const auto& [c, value] : row) {
      p.indices.push_back(c);
      p.values.push_back(value);
    }
    p.offsets.push_back(p.nnz());
  }
  return p;
}

ChunkBlock make_row_block(const Csr& a, LocalId begin, LocalId end, int chunk) {
  ChunkBlock b{begin, end, {}, {}, chunk};
  for (EdgeOffset e = a.offsets[begin]; e < a.offsets[end]; ++e) b.touched.push_back(a.indices[e]);
  std::sort(b.touched.begin(), b.touched.end());
  b.touched.erase(std::unique(b.touched.begin(), b.touched.end()), b.touched.end());
  Csr block;  // rows of the chunk, columns renumbered to touched positions
  block.rows = end - begin;
  block.cols = static_cast<LocalId>(b.touched.size());
  block.offsets.assign(1, 0);
  for (LocalId r = begin; r < end; ++r) {
    for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e) {
      const auto it = std::lower_bound(b.touched.begin(), b.touched.end(), a.indices[e]);
      block.indices.push_back(static_cast<LocalId>(it - b.touched.begin()));
      block.values.push_back(a.values[e]);
    }
    block.offsets.push_back(block.nnz());
  }
  b.transposed = transpose(block);
  return b;
}

namespace {

// Fraction of entries whose column lies after (or, reversed, before) its row's block.
double outside_fraction(const Csr& a, const std::vector<ChunkBlock>& blocks, bool after) {
  if (a.nnz() == 0) return 0.0;
  std::int64_t count = 0;
  for (const ChunkBlock& b : blocks)
    for (EdgeOffset e = a.offsets[b.begin]; e < a.offsets[b.end]; ++e)
      count += after ? a.indices[e] >= b.end : a.indices[e] < b.begin;
  return static_cast<double>(count) / static_cast<double>(a.nnz());
}

}  // namespace

ChunkLayout make_chunk_layout(const Csr& adjacency, std::span<const std::int32_t> chunk_of, int k) {
  STRATA_REQUIRE(k >= 1, "--chunks must be at least 1, got ", k);
  STRATA_REQUIRE(static_cast<LocalId>(chunk_of.size()) == adjacency.rows, chunk_of.size(),
                 " chunk ids for ", adjacency.rows, " vertices");
  ChunkLayout layout;
  std::vector<LocalId> bounds;
  layout.order = chunk_major_order(chunk_of, k, bounds);
  layout.a_hat =
      permute_symmetric(gcn_normalize(adjacency, degrees_plus_one(adjacency)), layout.order);
  for (int c = 0; c < k; ++c)
    layout.blocks.push_back(make_row_block(layout.a_hat, bounds[c], bounds[c + 1], c));
  layout.later_entry_fraction = outside_fraction(layout.a_hat, layout.blocks, true);
  layout.earlier_entry_fraction = outside_fraction(layout.a_hat, layout.blocks, false);
  return layout;
}

ChunkBlock whole_block(const ChunkLayout& layout) {
  return make_row_block(layout.a_hat, 0, layout.a_hat.rows, -1);
}

CsrView row_block(const Csr& a, LocalId begin, LocalId end) {
  return row_block(a.view(), begin, end);
}

CsrView row_block(CsrView a, LocalId begin, LocalId end) {
  a.rows = end - begin;
  a.offsets += begin;
  return a;
}

}  // namespace strata
