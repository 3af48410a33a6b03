// load_dataset dispatch and feature preprocessing.
#include <filesystem>

#include "strata/datasets/dataset.h"

namespace strata {

Dataset load_dataset(const std::string& spec, const LoadOptions& options) {
  namespace fs = std::filesystem;
  Dataset d;
  if (spec == "synthetic") {
    d = make_sbm(options);
  } else if (spec == "rmat") {
    d = make_rmat(options);
  } else if (fs::is_directory(spec)) {
    d = load_ogb(spec, options);
  } else if (spec.ends_with(".strata")) {
    d = load_cache_raw(spec);
  } else {
    STRATA_REQUIRE(fs::is_regular_file(spec), spec,
                   ": no such dataset (expected synthetic, rmat, a directory, a .strata "
                   "cache or an edge-list file)");
    d = load_edge_list(spec, options);
  }
  preprocess(d, options);
  return d;
}

void preprocess(Dataset& d, const LoadOptions& options) {
  const std::int64_t rows = d.features.rows(), cols = d.features.cols();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    float* row = d.features.row(i);
    if (options.binarize)
      for (std::int64_t j = 0; j < cols; ++j) row[j] = row[j] > 0.0f ? 1.0f : 0.0f;
    if (!options.row_normalize) continue;
    double sum = 0;
    for (std::int64_t j = 0; j < cols; ++j) sum += row[j];
    if (sum == 0) continue;  // all-zero rows stay zero
    const auto scale = static_cast<float>(1.0 / sum);
    for (std::int64_t j = 0; j < cols; ++j) row[j] *= scale;
  }
}

}  // namespace strata
