#include "strata/partition/partitioner.h"

#include <metis.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/cuthill_mckee_ordering.hpp>
#include <climits>
#include <mutex>
#include <numeric>

#include "fennel.h"
#include "strata/core/error.h"
#include "strata/core/random.h"

namespace strata {
namespace {

struct MethodName {
  PartitionMethod method;
  std::string_view name;
};
constexpr MethodName kMethodNames[] = {{PartitionMethod::kMetis, "metis"},
                                       {PartitionMethod::kRandom, "random"},
                                       {PartitionMethod::kRange, "range"},
                                       {PartitionMethod::kRcm, "rcm"},
                                       {PartitionMethod::kFennel, "fennel"}};

std::vector<std::int32_t> random_parts(LocalId n, int parts, std::uint64_t seed) {
  std::vector<LocalId> order(n);
  std::iota(order.begin(), order.end(), 0);
  Rng rng(hash_key(seed, 0x5041525449ull));
  for (LocalId i = n - 1; i > 0; --i) {
    const auto j = static_cast<LocalId>(rng.below(static_cast<std::uint64_t>(i) + 1));
    std::swap(order[i], order[j]);
  }
  // Round-robin over a shuffled order: part sizes differ by at most one.
  std::vector<std::int32_t> result(n);
  for (LocalId i = 0; i < n; ++i) result[order[i]] = i % parts;
  return result;
}

// METIS rejects self-loops, so they are dropped from its copy of the graph.
void metis_arrays(const Csr& a, std::vector<idx_t>& xadj, std::vector<idx_t>& adjncy) {
  xadj.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  adjncy.reserve(a.indices.size());
  for (LocalId r = 0; r < a.rows; ++r) {
    for (LocalId c : a.neighbors(r))
      if (c != r) adjncy.push_back(c);
    xadj[r + 1] = static_cast<idx_t>(adjncy.size());
  }
}

std::vector<std::int32_t> metis_parts(const Csr& a, const PartitionOptions& options) {
  STRATA_REQUIRE(a.nnz() <= INT32_MAX, "graph has ", a.nnz(),
                 " edges, more than METIS's 32-bit ids allow (", INT32_MAX,
                 "); use --method rcm or --method range instead");
  std::vector<idx_t> xadj, adjncy;
  metis_arrays(a, xadj, adjncy);
  idx_t opts[METIS_NOPTIONS];
  METIS_SetDefaultOptions(opts);
  opts[METIS_OPTION_OBJTYPE] = options.metis_min_volume ? METIS_OBJTYPE_VOL : METIS_OBJTYPE_CUT;
  opts[METIS_OPTION_UFACTOR] = static_cast<idx_t>(options.imbalance * 1000.0 + 0.5);
  opts[METIS_OPTION_SEED] = static_cast<idx_t>(options.seed & 0x7fffffffu);
  idx_t nvtxs = a.rows, ncon = options.balance_edges ? 2 : 1, nparts = options.parts, objval = 0;
  std::vector<idx_t> weights;  // per vertex: 1, then degree + 1
  if (options.balance_edges)
    for (LocalId v = 0; v < a.rows; ++v) {
      weights.push_back(1);
      weights.push_back(xadj[v + 1] - xadj[v] + 1);
    }
  std::vector<idx_t> part(a.rows);
  // METIS seeds and draws from one process-wide generator: concurrent calls (threads of
  // an in-process run, or a library user's) would change each other's partitions.
  static std::mutex metis_mutex;
  const std::lock_guard lock(metis_mutex);
  const int status = METIS_PartGraphKway(
      &nvtxs, &ncon, xadj.data(), adjncy.data(), weights.empty() ? nullptr : weights.data(),
      nullptr, nullptr, &nparts, nullptr, nullptr, opts, &objval, part.data());
  STRATA_REQUIRE(status == METIS_OK, "METIS_PartGraphKway failed with code ", status,
                 status == METIS_ERROR_MEMORY ? " (out of memory)" : " (input or internal error)",
                 " partitioning ", a.rows, " vertices into ", options.parts, " parts");
  return {part.begin(), part.end()};
}

}  // namespace

PartitionMethod parse_partition_method(std::string_view name) {
  for (const auto& entry : kMethodNames)
    if (entry.name == name) return entry.method;
  throw_input_error("unknown partition method '", name,
                    "'; valid: metis, random, range, rcm, fennel");
}

const char* partition_method_name(PartitionMethod method) {
  for (const auto& entry : kMethodNames)
    if (entry.method == method) return entry.name.data();
  return "unknown";
}

std::vector<LocalId> reverse_cuthill_mckee_order(const Csr& a) {
  using namespace boost;
  using Graph =
      adjacency_list<vecS, vecS, undirectedS,
                     property<vertex_color_t, default_color_type, property<vertex_degree_t, int>>>;
  Graph g(static_cast<std::size_t>(a.rows));
  for (LocalId r = 0; r < a.rows; ++r)
    for (LocalId c : a.neighbors(r))
      if (r < c) add_edge(static_cast<std::size_t>(r), static_cast<std::size_t>(c), g);
  std::vector<Graph::vertex_descriptor> order(num_vertices(g));
  cuthill_mckee_ordering(g, order.rbegin(), get(vertex_color, g), make_degree_map(g));
  return {order.begin(), order.end()};
}

std::vector<GlobalId> vertices_of_part(std::span<const std::int32_t> part_of, int part) {
  std::vector<GlobalId> vertices;
  for (std::size_t v = 0; v < part_of.size(); ++v)
    if (part_of[v] == part) vertices.push_back(static_cast<GlobalId>(v));
  return vertices;
}

std::vector<std::int32_t> ranges_of_order(std::span<const LocalId> order, int parts) {
  const auto n = static_cast<std::int64_t>(order.size());
  std::vector<std::int32_t> result(order.size());
  for (std::int64_t i = 0; i < n; ++i) result[order[i]] = static_cast<std::int32_t>(i * parts / n);
  return result;
}

std::vector<std::int32_t> partition_graph(const Csr& adjacency, const PartitionOptions& options) {
  STRATA_REQUIRE(adjacency.rows == adjacency.cols, "partitioning needs a square adjacency, got ",
                 adjacency.rows, " x ", adjacency.cols);
  STRATA_REQUIRE(options.parts >= 1 && options.parts <= std::max<LocalId>(adjacency.rows, 1),
                 "cannot split ", adjacency.rows, " vertices into ", options.parts, " parts");
  if (options.parts == 1) return std::vector<std::int32_t>(adjacency.rows, 0);
  switch (options.method) {
    case PartitionMethod::kMetis:
      return metis_parts(adjacency, options);
    case PartitionMethod::kRandom:
      return random_parts(adjacency.rows, options.parts, options.seed);
    case PartitionMethod::kRange: {
      std::vector<LocalId> identity(adjacency.rows);
      std::iota(identity.begin(), identity.end(), 0);
      return ranges_of_order(identity, options.parts);
    }
    case PartitionMethod::kRcm:
      return ranges_of_order(reverse_cuthill_mckee_order(adjacency), options.parts);
    case PartitionMethod::kFennel:
      return fennel_parts(adjacency, options);
  }
  STRATA_CHECK(false, "unhandled partition method");
  return {};
}

}  // namespace strata
