// load_dataset dispatch and feature preprocessing.
#include "strata/datasets/dataset.h"

#include <filesystem>

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

namespace {

// Binarizes (if asked) then row-normalizes (if asked) one row's stored values. Zeros
// add nothing to the sum, so dense and sparse rows get bitwise the same result.
void preprocess_row(float* row, std::int64_t count, const LoadOptions& options) {
  if (options.binarize)
    for (std::int64_t j = 0; j < count; ++j) row[j] = row[j] > 0.0f ? 1.0f : 0.0f;
  if (!options.row_normalize) return;
  double sum = 0;
  for (std::int64_t j = 0; j < count; ++j) sum += row[j];
  if (sum == 0) return;  // all-zero rows stay zero
  const auto scale = static_cast<float>(1.0 / sum);
  for (std::int64_t j = 0; j < count; ++j) row[j] *= scale;
}

}  // namespace

void preprocess(Dataset& d, const LoadOptions& options) {
  if (!options.binarize && !options.row_normalize) return;
  if (d.features.is_sparse()) {
    Csr& x = d.features.sparse();
#pragma omp parallel for schedule(static)
    for (LocalId i = 0; i < x.rows; ++i)
      preprocess_row(x.values.data() + x.offsets[i], x.degree(i), options);
    return;
  }
  Matrix& x = d.features.dense();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < x.rows(); ++i) preprocess_row(x.row(i), x.cols(), options);
}

}  // namespace strata
