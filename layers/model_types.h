// Each model's ModelType, for the registry (model_registry.cpp).
#pragma once
#include "strata/layers/model.h"

namespace strata {

const ModelType& gcn_model_type();
const ModelType& gcnii_model_type();
const ModelType& sage_model_type();
const ModelType& gin_model_type();
const ModelType& gat_model_type();

}  // namespace strata
