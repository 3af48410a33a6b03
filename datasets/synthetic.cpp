// Synthetic graphs: a stochastic block model and R-MAT, deterministic by seed whatever the
// thread count (per-block generators keyed by seed and block index).
#include "synthetic.h"

#include <omp.h>

#include <algorithm>
#include <bit>

#include "strata/core/random.h"
#include "strata/graph/csr_from_entries.h"

namespace strata {
namespace detail {

namespace {
constexpr std::int64_t kBlock = 1 << 16;  // edges or nodes per generator stream
constexpr float kNoise = 0.08f;           // chance of a 1 in another class's feature columns
constexpr std::uint64_t kLabelKey = 1, kFeatureKey = 2, kSplitKey = 3, kEdgeKey = 4;
}  // namespace

void fill_labels_and_features(Dataset& d, std::int64_t n, const LoadOptions& options) {
  const std::int32_t c = options.classes;
  const std::int64_t f = options.features;
  d.labels.resize(static_cast<std::size_t>(n));
  Matrix features(n, f);  // dense: synthetic features are ~10% ones, narrow by default
  d.num_classes = c;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const auto label = static_cast<std::int32_t>(hash_key(options.seed, kLabelKey, i) % c);
    d.labels[static_cast<std::size_t>(i)] = label;
    float* row = features.row(i);
    for (std::int64_t j = 0; j < f; ++j) {
      const float u = uniform01(hash_key(options.seed, kFeatureKey, i, j));
      const bool signal = j % c == label;
      row[j] = (signal ? u < options.feature_signal : u < kNoise) ? 1.0f : 0.0f;
    }
  }
  d.features = FeatureMatrix(std::move(features));
}

void split_per_class(Dataset& d, std::int32_t per_class, std::int64_t val_count,
                     std::uint64_t seed) {
  const auto n = static_cast<std::int64_t>(d.labels.size());
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  Rng rng(hash_key(seed, kSplitKey));
  for (std::int64_t i = n - 1; i > 0; --i)
    std::swap(order[static_cast<std::size_t>(i)],
              order[rng.below(static_cast<std::uint64_t>(i + 1))]);
  d.train_mask.assign(static_cast<std::size_t>(n), 0);
  d.val_mask.assign(static_cast<std::size_t>(n), 0);
  d.test_mask.assign(static_cast<std::size_t>(n), 0);
  std::vector<std::int32_t> taken(static_cast<std::size_t>(d.num_classes), 0);
  for (std::int64_t node : order) {
    auto& count = taken[static_cast<std::size_t>(d.labels[static_cast<std::size_t>(node)])];
    if (count < per_class) {
      ++count;
      d.train_mask[static_cast<std::size_t>(node)] = 1;
    } else if (val_count > 0) {
      --val_count;
      d.val_mask[static_cast<std::size_t>(node)] = 1;
    } else {
      d.test_mask[static_cast<std::size_t>(node)] = 1;
    }
  }
}

void split_random(Dataset& d, float train, float val, std::uint64_t seed) {
  const std::size_t n = d.labels.size();
  d.train_mask.assign(n, 0);
  d.val_mask.assign(n, 0);
  d.test_mask.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const float u = uniform01(hash_key(seed, kSplitKey, i));
    (u < train ? d.train_mask : u < train + val ? d.val_mask : d.test_mask)[i] = 1;
  }
}

namespace {

// Calls visit(s, d) for every entry the `count` drawn edges put in the adjacency: each edge
// but a self-loop, and (undirected) its reverse. One stream per block of kBlock edges,
// keyed by seed and block, so that the same entries come again on every call.
template <typename MakeEdge, typename Visit>
void each_entry(std::int64_t count, std::uint64_t seed, bool directed, MakeEdge& make_edge,
                Visit&& visit) {
  const std::int64_t blocks = (count + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t b = 0; b < blocks; ++b) {
    Rng rng(hash_key(seed, kEdgeKey, b));
    const std::int64_t end = std::min(count, (b + 1) * kBlock);
    for (std::int64_t k = b * kBlock; k < end; ++k) {
      const Edge e = make_edge(rng);
      const auto s = static_cast<LocalId>(e.src), d = static_cast<LocalId>(e.dst);
      if (s == d) continue;
      visit(s, d);
      if (!directed) visit(d, s);
    }
  }
}

}  // namespace

// build_csr's adjacency of the drawn edges (no self-loops or duplicates, rows sorted,
// symmetrized unless directed) without an edge list: the edges are drawn twice.
template <typename MakeEdge>
Csr generate_csr(std::int64_t n, std::int64_t count, std::uint64_t seed, bool directed,
                 MakeEdge&& make_edge) {
  const auto entries = [&](auto&& visit) { each_entry(count, seed, directed, make_edge, visit); };
  return csr_from_entries(static_cast<LocalId>(n), entries, true);
}

std::int64_t edge_count(const LoadOptions& options) {
  // Symmetrized later, so each drawn pair contributes two directed edges.
  return static_cast<std::int64_t>(static_cast<double>(options.nodes) * options.avg_degree / 2);
}

void check_generator_options(const LoadOptions& o) {
  STRATA_REQUIRE(o.nodes > 1 && o.nodes < (std::int64_t{1} << 31),
                 "synthetic: nodes must be in [2, 2^31), got ", o.nodes);
  STRATA_REQUIRE(o.avg_degree > 0, "synthetic: avg_degree must be positive, got ", o.avg_degree);
  STRATA_REQUIRE(o.features > 0, "synthetic: features must be positive, got ", o.features);
  STRATA_REQUIRE(o.classes >= 2 && o.classes <= o.nodes,
                 "synthetic: classes must be in [2, nodes], got ", o.classes);
  STRATA_REQUIRE(o.feature_signal >= 0 && o.feature_signal <= 1,
                 "synthetic: feature_signal must be in [0, 1], got ", o.feature_signal);
}

}  // namespace detail

Dataset make_sbm(const LoadOptions& options) {
  detail::check_generator_options(options);
  Dataset d;
  d.name = "synthetic";
  const std::int64_t n = options.nodes;
  detail::fill_labels_and_features(d, n, options);
  // Blocks = classes; 70% of edges stay inside the source's block (rejection-sampled).
  auto make_edge = [&](Rng& rng) {
    const auto src = static_cast<GlobalId>(rng.below(static_cast<std::uint64_t>(n)));
    auto dst = static_cast<GlobalId>(rng.below(static_cast<std::uint64_t>(n)));
    if (rng.uniform() < 0.7f)
      for (int tries = 0; tries < 64 && d.labels[dst] != d.labels[src]; ++tries)
        dst = static_cast<GlobalId>(rng.below(static_cast<std::uint64_t>(n)));
    return Edge{src, dst};
  };
  d.adjacency = detail::generate_csr(n, detail::edge_count(options), options.seed, options.directed,
                                     make_edge);
  detail::split_per_class(d, 20, 500, options.seed);
  return d;
}

Dataset make_rmat(const LoadOptions& options) {
  detail::check_generator_options(options);
  Dataset d;
  d.name = "rmat";
  const std::int64_t n = options.nodes;
  const auto scale = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(n - 1)));
  auto make_edge = [&](Rng& rng) {
    while (true) {
      std::uint64_t src = 0, dst = 0;
      for (int level = 0; level < scale; ++level) {
        const float u = rng.uniform();  // quadrants a=.57, b=.19, c=.19, d=.05
        const std::uint64_t right = u >= 0.57f && (u < 0.76f || u >= 0.95f);
        const std::uint64_t down = u >= 0.76f;
        src = (src << 1) | down;
        dst = (dst << 1) | right;
      }
      if (src < static_cast<std::uint64_t>(n) && dst < static_cast<std::uint64_t>(n))
        return Edge{static_cast<GlobalId>(src), static_cast<GlobalId>(dst)};
    }
  };
  d.adjacency = detail::generate_csr(n, detail::edge_count(options), options.seed, options.directed,
                                     make_edge);
  detail::fill_labels_and_features(d, n, options);
  detail::split_per_class(d, 20, 500, options.seed);
  return d;
}

}  // namespace strata
