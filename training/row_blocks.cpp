// Row blocks, column ranges and joins of a layout's Â (row_layout.h), values or scales
// carried along.
#include <algorithm>

#include "strata/core/error.h"
#include "strata/training/row_layout.h"

namespace strata {
namespace {

// Rows [b.begin, b.end) of a's pattern, offsets from zero.
Csr row_block_pattern(const Csr& a, const Block& b) {
  Csr c;
  c.rows = b.size();
  c.cols = a.cols;
  const EdgeOffset first = a.offsets[b.begin], last = a.offsets[b.end];
  c.offsets.clear();
  for (LocalId r = b.begin; r <= b.end; ++r) c.offsets.push_back(a.offsets[r] - first);
  c.indices.assign(a.indices.begin() + first, a.indices.begin() + last);
  return c;
}

// scale, or cols ones where it is empty.
std::vector<float> scale_or_ones(const std::vector<float>& scale, LocalId cols) {
  return scale.empty() ? std::vector<float>(static_cast<std::size_t>(cols), 1.0f) : scale;
}

// The scales of [left | right], or false where its entries need values of their own.
bool join_scales(const Csr& left, const Csr& right, Csr& c) {
  if (!left.values.empty() || !right.values.empty() || left.row_scale != right.row_scale)
    return false;
  c.row_scale = left.row_scale;
  if (left.col_scale.empty() && right.col_scale.empty()) return true;
  c.col_scale = scale_or_ones(left.col_scale, left.cols);
  const std::vector<float> tail = scale_or_ones(right.col_scale, right.cols);
  c.col_scale.insert(c.col_scale.end(), tail.begin(), tail.end());
  return true;
}

}  // namespace

Csr row_block_with_values(const Csr& a, const Block& b) {
  Csr c = row_block_pattern(a, b);
  if (a.weighted()) c.values = entry_values(rows_view(a, b.begin, b.end));
  return c;
}

Csr row_block_copy(const Csr& a, const Block& b) {
  Csr c = row_block_pattern(a, b);
  const EdgeOffset first = a.offsets[b.begin], last = a.offsets[b.end];
  if (!a.values.empty()) c.values.assign(a.values.begin() + first, a.values.begin() + last);
  if (!a.row_scale.empty())
    c.row_scale.assign(a.row_scale.begin() + b.begin, a.row_scale.begin() + b.end);
  c.col_scale = a.col_scale;
  return c;
}

Csr column_range(const Csr& a, LocalId begin, LocalId end) {
  Csr c;
  c.rows = a.rows;
  c.cols = end - begin;
  c.offsets.assign(1, 0);
  c.row_scale = a.row_scale;
  if (!a.col_scale.empty())
    c.col_scale.assign(a.col_scale.begin() + begin, a.col_scale.begin() + end);
  for (LocalId r = 0; r < a.rows; ++r) {
    for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e) {
      if (a.indices[e] < begin || a.indices[e] >= end) continue;
      c.indices.push_back(a.indices[e] - begin);
      if (!a.values.empty()) c.values.push_back(a.values[e]);
    }
    c.offsets.push_back(static_cast<EdgeOffset>(c.indices.size()));
  }
  return c;
}

Csr join_columns(const Csr& left, const Csr& right) {
  STRATA_CHECK(left.rows == right.rows, "join_columns of ", left.rows, " and ", right.rows,
               " rows");
  Csr c;
  c.rows = left.rows;
  c.cols = left.cols + right.cols;
  c.offsets.assign(1, 0);
  const bool values = !join_scales(left, right, c);
  for (LocalId r = 0; r < c.rows; ++r) {
    for (const Csr* side : {&left, &right}) {
      const LocalId shift = side == &left ? 0 : left.cols;
      for (EdgeOffset e = side->offsets[r]; e < side->offsets[r + 1]; ++e) {
        c.indices.push_back(side->indices[e] + shift);
        if (values) c.values.push_back(side->value(r, e));
      }
    }
    c.offsets.push_back(c.nnz());
  }
  return c;
}

Csr transposed_block(const Csr& a, const Block& b, std::vector<LocalId>& touched) {
  touched.assign(a.indices.begin() + a.offsets[b.begin], a.indices.begin() + a.offsets[b.end]);
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  Csr block;  // b's rows, columns renumbered to touched positions
  block.rows = b.size();
  block.cols = static_cast<LocalId>(touched.size());
  block.offsets.assign(1, 0);
  if (!a.row_scale.empty())
    block.row_scale.assign(a.row_scale.begin() + b.begin, a.row_scale.begin() + b.end);
  block.col_scale = scales_at(a.col_scale, std::span<const LocalId>(touched));
  for (LocalId r = b.begin; r < b.end; ++r) {
    for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e) {
      const auto it = std::lower_bound(touched.begin(), touched.end(), a.indices[e]);
      block.indices.push_back(static_cast<LocalId>(it - touched.begin()));
      if (!a.values.empty()) block.values.push_back(a.values[e]);
    }
    block.offsets.push_back(block.nnz());
  }
  return transpose(block);
}

}  // namespace strata
