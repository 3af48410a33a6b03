// Shared pieces of the synthetic generators: labels, noisy class-signal features, splits.
#pragma once
#include <cstdint>

#include "strata/datasets/dataset.h"

namespace strata::detail {

// Labels = hash(seed, node) mod classes; features = class signal plus sparse noise.
void fill_labels_and_features(Dataset& d, std::int64_t n, const LoadOptions& options);
// train: `per_class` random nodes of each class; val: `val_count` more; test: the rest.
void split_per_class(Dataset& d, std::int32_t per_class, std::int64_t val_count,
                     std::uint64_t seed);
// Each node independently: train with p=train, val with p=val, else test.
void split_random(Dataset& d, float train, float val, std::uint64_t seed);

}  // namespace strata::detail
