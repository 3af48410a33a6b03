#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "commands.h"

namespace strata::cli {
namespace {

void print_degrees(const Csr& a) {
  if (a.rows == 0) return;
  std::vector<EdgeOffset> deg(static_cast<std::size_t>(a.rows));
  for (LocalId r = 0; r < a.rows; ++r) deg[r] = a.degree(r);
  std::sort(deg.begin(), deg.end());
  const double mean = static_cast<double>(a.nnz()) / a.rows;
  std::printf("degree: min %lld  median %lld  mean %.2f  max %lld  isolated %lld\n",
              static_cast<long long>(deg.front()), static_cast<long long>(deg[deg.size() / 2]),
              mean, static_cast<long long>(deg.back()),
              static_cast<long long>(std::count(deg.begin(), deg.end(), 0)));
}

void print_classes(const Dataset& d) {
  std::vector<long long> counts(static_cast<std::size_t>(d.num_classes), 0);
  for (auto label : d.labels) ++counts[static_cast<std::size_t>(label)];
  std::printf("classes: %d  counts:", d.num_classes);
  for (auto c : counts) std::printf(" %lld", c);
  std::printf("\n");
}

void print_features(const FeatureMatrix& x) {
  std::printf("feature storage: %s  non-zeros %lld  density %.4f%%\n",
              x.is_sparse() ? "sparse (CSR)" : "dense", static_cast<long long>(x.nnz()),
              100.0 * x.density());
}

long long count(const std::vector<std::uint8_t>& mask) {
  return std::accumulate(mask.begin(), mask.end(), 0LL);
}

}  // namespace

int run_info(const DatasetArgs& args) {
  const Dataset d = load_dataset(args.dataset, args.load);
  std::printf("dataset: %s\nvertices: %d\nedges (directed, after cleaning): %lld\nfeatures: %lld\n",
              d.name.c_str(), d.adjacency.rows, static_cast<long long>(d.adjacency.nnz()),
              static_cast<long long>(d.features.cols()));
  print_features(d.features);
  print_degrees(d.adjacency);
  print_classes(d);
  std::printf("split: train %lld  valid %lld  test %lld\n", count(d.train_mask), count(d.val_mask),
              count(d.test_mask));
  return 0;
}

int run_convert(const ConvertArgs& args) {
  LoadOptions raw = args.data.load;
  raw.binarize = false;  // the cache keeps raw features; preprocessing happens at load
  raw.row_normalize = false;
  const Dataset d = load_dataset(args.data.dataset, raw);
  save_cache(d, args.out);
  std::printf("wrote %s: %d vertices, %lld edges, %lld features (%s)\n", args.out.c_str(),
              d.adjacency.rows, static_cast<long long>(d.adjacency.nnz()),
              static_cast<long long>(d.features.cols()),
              d.features.is_sparse() ? "sparse" : "dense");
  return 0;
}

}  // namespace strata::cli
