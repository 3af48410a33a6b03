// Node-classification datasets: OGB raw directories, edge lists, a binary cache, and
// synthetic generators (SBM, R-MAT). Every malformed input throws one strata::Error line.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "strata/core/matrix.h"
#include "strata/datasets/feature_matrix.h"
#include "strata/graph/csr.h"

namespace strata {

struct Dataset {
  std::string name;
  Csr adjacency;                     // N x N, no self-loops; symmetrized unless directed
  FeatureMatrix features;            // N x F, dense or sparse (see feature_matrix.h)
  std::vector<std::int32_t> labels;  // N, in [0, num_classes)
  std::int32_t num_classes = 0;
  std::vector<std::uint8_t> train_mask, val_mask, test_mask;  // N each, 0/1
};

struct LoadOptions {
  std::string split;  // OGB split name; empty = the only one or the first in name order
  bool directed = false;
  bool binarize = false;      // x>0 -> 1
  bool row_normalize = true;  // rows sum to 1 (all-zero rows stay zero)
  // synthetic generators
  std::int64_t nodes = 4096;
  double avg_degree = 16;
  std::int32_t features = 64;
  std::int32_t classes = 8;
  std::uint64_t seed = 0;
  // SBM: chance of a 1 in the columns of a vertex's own class (others: 0.08)
  float feature_signal = 0.12f;
};

// spec: "synthetic" (SBM), "rmat", a directory (OGB raw layout), a file ending .strata
// (binary cache), any other file = edge list. Runs preprocess() on the result.
Dataset load_dataset(const std::string& spec, const LoadOptions& options);

// The same dataset with vertex order[i] as vertex i (order: a permutation of the vertices),
// each adjacency row's columns renamed and sorted; an input error if order is not one.
Dataset renumbered(const Dataset& d, std::span<const LocalId> order);

Dataset load_ogb(const std::string& dir, const LoadOptions& options);
Dataset load_edge_list(const std::string& file, const LoadOptions& options);
Dataset make_sbm(const LoadOptions& options);
Dataset make_rmat(const LoadOptions& options);

// The cache keeps the features' storage kind (dense or sparse) and their exact values.
void save_cache(const Dataset& dataset, const std::string& path);
Dataset load_cache_raw(const std::string& path);

// Binarize (if asked) then row-normalize (if asked), in place, dense or sparse.
void preprocess(Dataset& dataset, const LoadOptions& options);

// values[ids[0]], values[ids[1]], ...: per-vertex values of the vertices ids names.
template <typename T>
std::vector<T> select_values(const std::vector<T>& values, std::span<const GlobalId> ids) {
  std::vector<T> out;
  out.reserve(ids.size());
  for (GlobalId id : ids) out.push_back(values[static_cast<std::size_t>(id)]);
  return out;
}

}  // namespace strata
