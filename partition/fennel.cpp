// Fennel (Tsourakakis et al., WSDM 2014), restreamed (Nishimura and Ugander, KDD 2013).
// Vertices stream in id order; each joins the part that holds most of its neighbours, less
// a penalty that grows with the part's size:
//   argmax_i |N(v) ∩ S_i| - alpha * gamma * |S_i|^(gamma - 1),
//   gamma = 1.5, alpha = sqrt(parts) * edges / vertices^gamma,
// among the parts below their caps: an even share of the vertices, and with balance_edges
// also of the adjacency entries plus one per vertex (what METIS is asked to balance). The
// first pass sees the neighbours already placed; each later pass streams again with every
// neighbour where the pass before left it, a vertex leaving its own part before it
// chooses. The caps start kSlack above the share and tighten pass by pass to (1 +
// imbalance) times it: a loose first pass lets neighbourhoods gather, the last pass drains
// what is over. The vertex cap always holds at the end (a vertex only ever joins a part
// below it); the entry cap is met where the vertex caps leave room. Memory: a part per
// vertex and a load and a counter per part (METIS holds several coarsened copies of the
// graph at once).
#include "fennel.h"

#include <algorithm>
#include <cmath>

#include "strata/core/error.h"

namespace strata {
namespace {

constexpr double kGamma = 1.5;
constexpr int kPasses = 8;      // the first pass and its restreams
constexpr double kSlack = 0.3;  // the first pass's caps: 1.3 + imbalance times a share

struct Loads {
  std::vector<std::int64_t> vertices, entries;
  std::int64_t vertex_cap = 0, entry_cap = 0;  // entry_cap 0: entries are not balanced

  bool has_vertex_room(std::size_t p) const { return vertices[p] < vertex_cap; }
  bool fits(std::size_t p, std::int64_t weight) const {
    return has_vertex_room(p) && (entry_cap == 0 || entries[p] + weight <= entry_cap);
  }
  void add(std::size_t p, std::int64_t weight, int sign) {
    vertices[p] += sign;
    entries[p] += sign * weight;
  }
};

class Stream {
 public:
  Stream(const Csr& a, const PartitionOptions& options)
      : a_(a), options_(options), counts_(static_cast<std::size_t>(options.parts), 0) {
    loads_.vertices.assign(counts_.size(), 0);
    loads_.entries = loads_.vertices;
    const double n = std::max<double>(static_cast<double>(a.rows), 1.0);
    alpha_ = std::sqrt(static_cast<double>(options.parts)) * static_cast<double>(a.nnz()) / 2.0 /
             std::pow(n, kGamma);
    part_.assign(static_cast<std::size_t>(a.rows), -1);
  }

  // One pass over every vertex, the caps `slack` above (1 + imbalance) times a share.
  void pass(double slack) {
    const double share = (1.0 + options_.imbalance + slack) / options_.parts;
    loads_.vertex_cap =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(share * a_.rows)));
    if (options_.balance_edges)
      loads_.entry_cap =
          static_cast<std::int64_t>(std::ceil(share * static_cast<double>(a_.nnz() + a_.rows)));
    for (LocalId v = 0; v < a_.rows; ++v) place(v);
  }
  std::vector<std::int32_t> parts() && { return std::move(part_); }

 private:
  std::int64_t weight(LocalId v) const { return a_.offsets[v + 1] - a_.offsets[v] + 1; }

  void place(LocalId v) {
    std::int32_t& own = part_[static_cast<std::size_t>(v)];
    if (own >= 0) loads_.add(static_cast<std::size_t>(own), weight(v), -1);
    for (const LocalId u : a_.neighbors(v)) {
      const std::int32_t p = part_[static_cast<std::size_t>(u)];
      if (u != v && p >= 0) ++counts_[static_cast<std::size_t>(p)];
    }
    own = best_part(weight(v));
    loads_.add(static_cast<std::size_t>(own), weight(v), +1);
    std::fill(counts_.begin(), counts_.end(), 0);
  }

  // The best-scoring part with room for v (ties: the lower id); where every part with room
  // for one more vertex is full of entries, the one of them with the fewest. Some part
  // always has room for a vertex: the caps add up to at least every vertex.
  std::int32_t best_part(std::int64_t w) const {
    std::int32_t best = -1, fallback = -1;
    double best_score = 0;
    for (std::size_t p = 0; p < counts_.size(); ++p) {
      if (!loads_.has_vertex_room(p)) continue;
      const auto part = static_cast<std::int32_t>(p);
      if (fallback < 0 || loads_.entries[p] < loads_.entries[static_cast<std::size_t>(fallback)])
        fallback = part;
      if (!loads_.fits(p, w)) continue;
      const double score =
          static_cast<double>(counts_[p]) -
          alpha_ * kGamma * std::pow(static_cast<double>(loads_.vertices[p]), kGamma - 1.0);
      if (best < 0 || score > best_score) best = part, best_score = score;
    }
    STRATA_CHECK(fallback >= 0, "fennel: no part has room for a vertex");
    return best >= 0 ? best : fallback;
  }

  const Csr& a_;
  PartitionOptions options_;
  Loads loads_;
  std::vector<std::int64_t> counts_;
  std::vector<std::int32_t> part_;
  double alpha_ = 0;
};

}  // namespace

std::vector<std::int32_t> fennel_parts(const Csr& adjacency, const PartitionOptions& options) {
  Stream stream(adjacency, options);
  for (int i = 0; i < kPasses; ++i)
    stream.pass(kSlack * (1.0 - static_cast<double>(i) / (kPasses - 1)));
  return std::move(stream).parts();
}

}  // namespace strata
