// Trained weights on disk: the model they belong to (kind and sizes), then every
// parameter tensor with its name and shape, in checksummed sections (core/sections.h),
// written atomically. Reading checks the file against the model it is meant for.
#pragma once
#include <string>
#include <vector>

#include "strata/layers/model.h"

namespace strata {

using Weights = std::vector<std::vector<float>>;  // the model's parameters, in order

// An input error when `weights` does not fit `model` (count, sizes) or holds NaN or inf.
void check_weights(const ModelConfig& model, const Weights& weights, const std::string& source);

void write_weights_file(const std::string& path, const ModelConfig& model, const Weights& weights);
// Input errors name the path and what differs: a model of another kind or size, a
// tensor of another shape, a damaged byte, a non-finite value.
Weights read_weights_file(const std::string& path, const ModelConfig& model);

}  // namespace strata
