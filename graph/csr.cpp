#include "strata/graph/csr.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "strata/core/error.h"
#include "strata/graph/csr_from_entries.h"

namespace strata {
namespace {

void check_edge_ids(GlobalId n, std::span<const Edge> edges) {
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const Edge& e = edges[i];
    STRATA_REQUIRE(e.src >= 0 && e.src < n && e.dst >= 0 && e.dst < n, "edge ", i, " (", e.src,
                   ", ", e.dst, ") has a vertex id outside [0, ", n, ")");
  }
}

}  // namespace

Csr build_csr(GlobalId n, std::span<const Edge> edges, const BuildOptions& options) {
  STRATA_REQUIRE(n >= 0 && n < std::numeric_limits<LocalId>::max(), "graph has ", n,
                 " vertices; at most 2^31-1 are supported");
  check_edge_ids(n, edges);
  const auto each_entry = [&](auto&& visit) {
    for (const Edge& e : edges) {
      const auto s = static_cast<LocalId>(e.src), d = static_cast<LocalId>(e.dst);
      if (options.drop_self_loops && s == d) continue;
      visit(s, d);
      if (options.symmetrize && s != d) visit(d, s);
    }
  };
  return csr_from_entries(static_cast<LocalId>(n), each_entry, options.drop_duplicates);
}

void sort_rows(Csr& csr, bool drop_duplicates) {
  EdgeOffset out = 0;
  for (LocalId r = 0; r < csr.rows; ++r) {
    auto begin = csr.indices.begin() + csr.offsets[r];
    auto end = csr.indices.begin() + csr.offsets[r + 1];
    std::sort(begin, end);
    if (drop_duplicates) end = std::unique(begin, end);
    csr.offsets[r] = out;
    for (auto it = begin; it != end; ++it) csr.indices[static_cast<std::size_t>(out++)] = *it;
  }
  csr.offsets[static_cast<std::size_t>(csr.rows)] = out;
  csr.indices.resize(static_cast<std::size_t>(out));
}

std::vector<float> degrees_plus_one(const Csr& adjacency) {
  std::vector<float> deg(adjacency.rows);
  for (LocalId r = 0; r < adjacency.rows; ++r) deg[r] = static_cast<float>(adjacency.degree(r) + 1);
  return deg;
}

namespace {

// adjacency + I over its rows (the self-loop of row r at column r, in column order),
// unweighted.
Csr with_self_loops(const Csr& adjacency) {
  Csr out;
  out.rows = adjacency.rows;
  out.cols = adjacency.cols;
  out.offsets.assign(static_cast<std::size_t>(out.rows) + 1, 0);
  out.indices.reserve(adjacency.indices.size() + out.rows);
  for (LocalId r = 0; r < out.rows; ++r) {
    bool self_added = false;
    for (LocalId c : adjacency.neighbors(r)) {
      if (!self_added && c >= r) {
        out.indices.push_back(r);
        self_added = true;
        if (c == r) continue;
      }
      out.indices.push_back(c);
    }
    if (!self_added) out.indices.push_back(r);
    out.offsets[r + 1] = static_cast<EdgeOffset>(out.indices.size());
  }
  return out;
}

}  // namespace

CsrView rows_view(const Csr& a, LocalId begin, LocalId end) {
  CsrView v = a.view();
  v.rows = end - begin;
  v.offsets += begin;
  if (v.row_scale != nullptr) v.row_scale += begin;
  return v;
}

std::vector<float> entry_values(CsrView a) {
  std::vector<float> out(static_cast<std::size_t>(a.nnz()));
  const EdgeOffset base = a.offsets[0];
  for (LocalId r = 0; r < a.rows; ++r)
    for (EdgeOffset e = a.offsets[r]; e < a.offsets[r + 1]; ++e)
      out[static_cast<std::size_t>(e - base)] = a.value(r, e);
  return out;
}

void store_values(Csr& a) {
  if (!a.values.empty() || (a.row_scale.empty() && a.col_scale.empty())) return;
  a.values = entry_values(a.view());
  a.row_scale = std::vector<float>();  // (assigning {} would keep the capacity)
  a.col_scale = std::vector<float>();
}

Csr gcn_normalize(const Csr& adjacency, std::span<const float> degree_plus_one) {
  STRATA_CHECK(degree_plus_one.size() == static_cast<std::size_t>(adjacency.cols),
               "degree vector has ", degree_plus_one.size(), " entries for ", adjacency.cols,
               " columns");
  // value(r, c) = inv[r] · inv[c]: a product, so that value(c, r) has the same bits and Â
  // of an undirected graph is its own transpose (is_symmetric).
  Csr out = with_self_loops(adjacency);
  out.col_scale.resize(degree_plus_one.size());
  for (std::size_t c = 0; c < out.col_scale.size(); ++c)
    out.col_scale[c] = 1.0f / std::sqrt(degree_plus_one[c]);
  out.row_scale.assign(out.col_scale.begin(), out.col_scale.begin() + out.rows);
  return out;
}

Csr sum_with_self_loops(const Csr& adjacency) {
  return with_self_loops(adjacency);
}

Csr mean_normalize(const Csr& adjacency, std::span<const float> degree_plus_one) {
  STRATA_CHECK(degree_plus_one.size() >= static_cast<std::size_t>(adjacency.rows),
               "degree vector has ", degree_plus_one.size(), " entries for ", adjacency.rows,
               " rows");
  Csr out;
  out.rows = adjacency.rows;
  out.cols = adjacency.cols;
  out.offsets = adjacency.offsets;
  out.indices = adjacency.indices;
  out.row_scale.resize(static_cast<std::size_t>(out.rows));
  for (LocalId r = 0; r < out.rows; ++r)
    out.row_scale[r] = 1.0f / std::max(degree_plus_one[r] - 1.0f, 1.0f);
  return out;
}

namespace {

template <typename Id>
Csr permuted(const Csr& a, std::span<const Id> order) {
  std::vector<LocalId> position(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    position[static_cast<std::size_t>(order[i])] = static_cast<LocalId>(i);
  const bool valued = !a.values.empty();
  Csr p;
  p.rows = p.cols = a.rows;
  p.offsets.reserve(a.offsets.size());
  p.indices.reserve(a.indices.size());
  p.values.reserve(a.values.size());
  p.row_scale = scales_at(a.row_scale, order);
  p.col_scale = scales_at(a.col_scale, order);
  std::vector<std::pair<LocalId, float>> row;
  for (const Id v : order) {
    row.clear();
    for (EdgeOffset e = a.offsets[v]; e < a.offsets[v + 1]; ++e)
      row.emplace_back(position[a.indices[e]], valued ? a.values[e] : 1.0f);
    std::sort(row.begin(), row.end());
    for (const auto& [c, value] : row) {
      p.indices.push_back(c);
      if (valued) p.values.push_back(value);
    }
    p.offsets.push_back(p.nnz());
  }
  return p;
}

}  // namespace

Csr permute_symmetric(const Csr& a, std::span<const LocalId> order) {
  return permuted(a, order);
}

Csr permute_symmetric(const Csr& a, std::span<const GlobalId> order) {
  return permuted(a, order);
}

Csr transpose(const Csr& a) {
  Csr t;
  t.rows = a.cols;
  t.cols = a.rows;
  t.offsets.assign(static_cast<std::size_t>(t.rows) + 1, 0);
  for (LocalId c : a.indices) ++t.offsets[c + 1];
  for (LocalId r = 0; r < t.rows; ++r) t.offsets[r + 1] += t.offsets[r];
  t.indices.resize(a.indices.size());
  if (!a.values.empty()) t.values.resize(a.values.size());
  t.row_scale = a.col_scale;
  t.col_scale = a.row_scale;
  std::vector<EdgeOffset> cursor(t.offsets.begin(), t.offsets.end() - 1);
  for (LocalId r = 0; r < a.rows; ++r) {
    for (EdgeOffset k = a.offsets[r]; k < a.offsets[r + 1]; ++k) {
      const EdgeOffset pos = cursor[a.indices[k]]++;
      t.indices[pos] = r;
      if (!a.values.empty()) t.values[pos] = a.values[k];
    }
  }
  return t;
}

// Row r's entries are visited in order of r, so with every row sorted by column the entry
// (c, r) is the next unvisited one of row c: one pass, a cursor per row.
bool is_symmetric(const Csr& a) {
  if (a.rows != a.cols) return false;
  std::vector<EdgeOffset> cursor(a.offsets.begin(), a.offsets.end() - 1);
  for (LocalId r = 0; r < a.rows; ++r)
    for (EdgeOffset k = a.offsets[r]; k < a.offsets[r + 1]; ++k) {
      const LocalId c = a.indices[k];
      EdgeOffset& next = cursor[static_cast<std::size_t>(c)];
      if (next == a.offsets[c + 1] || a.indices[next] != r) return false;
      if (a.value(c, next) != a.value(r, k)) return false;
      ++next;
    }
  return true;
}

bool equal_up_to_row_order(const Csr& a, const Csr& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.offsets != b.offsets) return false;
  if (a.weighted() != b.weighted()) return false;
  std::vector<std::pair<LocalId, float>> row_a, row_b;
  const auto row = [](const Csr& m, LocalId r, std::vector<std::pair<LocalId, float>>& out) {
    out.clear();
    for (EdgeOffset k = m.offsets[r]; k < m.offsets[r + 1]; ++k)
      out.emplace_back(m.indices[k], m.value(r, k));
    std::sort(out.begin(), out.end());
  };
  for (LocalId r = 0; r < a.rows; ++r) {
    row(a, r, row_a);
    row(b, r, row_b);
    if (row_a != row_b) return false;
  }
  return true;
}

void validate(const Csr& a, const char* what) {
  STRATA_REQUIRE(a.offsets.size() == static_cast<std::size_t>(a.rows) + 1, what, ": ",
                 a.offsets.size(), " offsets for ", a.rows, " rows");
  STRATA_REQUIRE(a.offsets.front() == 0, what, ": first offset is ", a.offsets.front());
  for (LocalId r = 0; r < a.rows; ++r)
    STRATA_REQUIRE(a.offsets[r] <= a.offsets[r + 1], what, ": offsets decrease at row ", r);
  STRATA_REQUIRE(a.offsets.back() == a.nnz(), what, ": last offset ", a.offsets.back(), " but ",
                 a.nnz(), " indices");
  STRATA_REQUIRE(a.values.empty() || a.values.size() == a.indices.size(), what, ": ",
                 a.values.size(), " values for ", a.indices.size(), " indices");
  STRATA_REQUIRE(a.row_scale.empty() || a.row_scale.size() == static_cast<std::size_t>(a.rows),
                 what, ": ", a.row_scale.size(), " row scales for ", a.rows, " rows");
  STRATA_REQUIRE(a.col_scale.empty() || a.col_scale.size() == static_cast<std::size_t>(a.cols),
                 what, ": ", a.col_scale.size(), " column scales for ", a.cols, " columns");
  for (EdgeOffset k = 0; k < a.nnz(); ++k)
    STRATA_REQUIRE(a.indices[k] >= 0 && a.indices[k] < a.cols, what, ": column ", a.indices[k],
                   " at entry ", k, " outside [0, ", a.cols, ")");
}

}  // namespace strata
