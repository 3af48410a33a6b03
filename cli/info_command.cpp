// `strata info` and `strata convert`.
#include <cstdio>

#include "commands.h"

namespace strata::cli {

int run_info(const DatasetArgs& args) {
  const DatasetStats s = describe_dataset(args.dataset, args.load);
  const GraphSummary& g = s.summary;
  std::printf(
      "dataset: %s\nvertices: %lld\nedges (directed, after cleaning): %lld\nfeatures: %lld\n",
      g.name.c_str(), static_cast<long long>(g.vertices), static_cast<long long>(g.edges),
      static_cast<long long>(g.features));
  std::printf("feature storage: %s  non-zeros %lld  density %.4f%%\n",
              g.sparse_features ? "sparse (CSR)" : "dense",
              static_cast<long long>(s.feature_nonzeros), 100.0 * g.feature_density);
  if (g.vertices > 0)
    std::printf("degree: min %lld  median %lld  mean %.2f  max %lld  isolated %lld\n",
                static_cast<long long>(s.degree_min), static_cast<long long>(s.degree_median),
                s.degree_mean, static_cast<long long>(s.degree_max),
                static_cast<long long>(s.isolated));
  std::printf("classes: %d  counts:", g.classes);
  for (auto c : s.class_counts) std::printf(" %lld", static_cast<long long>(c));
  std::printf("\nsplit: train %lld  valid %lld  test %lld\n", static_cast<long long>(s.train),
              static_cast<long long>(s.val), static_cast<long long>(s.test));
  return 0;
}

int run_convert(const ConvertArgs& args) {
  const GraphSummary g =
      convert_dataset(args.data.dataset, args.data.load, args.out, parse_vertex_order(args.order));
  std::printf("wrote %s: %lld vertices, %lld edges, %lld features (%s)\n", args.out.c_str(),
              static_cast<long long>(g.vertices), static_cast<long long>(g.edges),
              static_cast<long long>(g.features), g.sparse_features ? "sparse" : "dense");
  return 0;
}

}  // namespace strata::cli
