// Inspecting and converting datasets without training (`strata info`, `strata convert`).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/graph.h"
#include "strata/result.h"

namespace strata {

struct DatasetStats {
  GraphSummary summary;
  std::int64_t feature_nonzeros = 0;
  std::int64_t degree_min = 0, degree_median = 0, degree_max = 0, isolated = 0;
  double degree_mean = 0;
  std::vector<std::int64_t> class_counts;     ///< vertices per label
  std::int64_t train = 0, val = 0, test = 0;  ///< vertices in each split
};

/// Loads `spec` (as GraphInput::dataset) and describes it.
DatasetStats describe_dataset(const std::string& spec, const DatasetOptions& options);

/// Writes `spec` as a binary cache at `out` (FILE.strata): raw features, loaded again
/// with any preprocessing. Returns what was written.
GraphSummary convert_dataset(const std::string& spec, const DatasetOptions& options,
                             const std::string& out);

}  // namespace strata
