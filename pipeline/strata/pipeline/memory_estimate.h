// What one pipeline rank will hold, predicted from sizes before anything is allocated:
// the dataset it loaded, the chunk layout (Â in chunk order and each block's transpose),
// its stage's per-layer buffers, and parameters with their gradients and Adam state.
// The process itself (libraries, MPI) is not included: callers add what they measured.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/datasets/dataset.h"
#include "strata/layers/model.h"
#include "strata/pipeline/stage_split.h"

namespace strata {

struct MemoryEstimate {
  std::int64_t dataset = 0;      // adjacency, features, labels, masks as loaded
  std::int64_t layout = 0;       // Â in chunk order, block transposes, chunk-order copies
  std::int64_t features = 0;     // first stage: features in chunk order and their dropout copy
  std::int64_t activations = 0;  // the stage's full-size per-layer buffers
  std::int64_t parameters = 0;   // values, gradients (float and double), Adam moments
  std::int64_t total() const { return dataset + layout + features + activations + parameters; }
};

MemoryEstimate estimate_pipeline_memory(const Dataset& data, const ModelConfig& model,
                                        const StageBounds& bounds, int stage, int chunks);

// "412.3 MB (dataset 12.0, layout 30.1, ...)"
std::string describe(const MemoryEstimate& e);

}  // namespace strata
