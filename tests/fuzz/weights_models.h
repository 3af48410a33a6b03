// The models the weights fuzz target reads files for (shared with the seed writer).
#pragma once
#include <array>

#include "strata/layers/model.h"

namespace strata::fuzz {

inline std::array<ModelConfig, 2> weights_models() {
  ModelConfig gcn;
  gcn.in_features = 3;
  gcn.hidden = 4;
  gcn.classes = 2;
  ModelConfig gcnii = gcn;
  gcnii.kind = ModelKind::kGcnii;
  gcnii.num_layers = 3;
  return {gcn, gcnii};
}

}  // namespace strata::fuzz
