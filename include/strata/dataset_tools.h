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

/// How `convert_dataset` numbers the vertices it writes: as loaded, or in reverse
/// Cuthill-McKee order, which puts a vertex's neighbours at nearby numbers so that a
/// sparse product finds more of the rows it gathers in cache (README, "Where a CPU epoch
/// goes"). Training results do not depend on the numbering beyond rounding and the
/// dropout masks, which are keyed by vertex number.
enum class VertexOrder { kAsLoaded, kRcm };

/// "as-loaded" or "rcm"; anything else is an input error naming both.
VertexOrder parse_vertex_order(const std::string& name);

/// Writes `spec` as a binary cache at `out` (FILE.strata): raw features, loaded again
/// with any preprocessing, its vertices numbered in `order`. Returns what was written.
GraphSummary convert_dataset(const std::string& spec, const DatasetOptions& options,
                             const std::string& out, VertexOrder order = VertexOrder::kAsLoaded);

}  // namespace strata
