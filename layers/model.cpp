#include "strata/layers/model.h"

#include "strata/core/error.h"
#include "strata/layers/gcn_model.h"
#include "strata/layers/gcnii_model.h"

namespace strata {

ModelKind parse_model_kind(std::string_view name) {
  if (name == "gcn") return ModelKind::kGcn;
  if (name == "gcnii") return ModelKind::kGcnii;
  STRATA_REQUIRE(false, "--model: unknown model '", name, "' (available: gcn, gcnii)");
  return ModelKind::kGcn;
}

const char* model_kind_name(ModelKind kind) {
  return kind == ModelKind::kGcn ? "gcn" : "gcnii";
}

std::unique_ptr<Model> make_model(const ModelConfig& config) {
  if (config.kind == ModelKind::kGcnii) return std::make_unique<GcniiModel>(config);
  return std::make_unique<GcnModel>(config);
}

std::vector<TensorShape> parameter_shapes(const ModelConfig& c) {
  std::vector<TensorShape> shapes;
  const auto linear = [&](const std::string& name, int in, int out, bool bias) {
    shapes.push_back({name + ".weight", in, out});
    if (bias) shapes.push_back({name + ".bias", 1, out});
  };
  if (c.kind == ModelKind::kGcn) {
    for (int l = 0; l < c.num_layers; ++l)
      linear("conv" + std::to_string(l + 1), l == 0 ? c.in_features : c.hidden,
             l + 1 == c.num_layers ? c.classes : c.hidden, c.bias);
    return shapes;
  }
  linear("input", c.in_features, c.hidden, true);
  for (int l = 1; l <= c.num_layers; ++l)
    linear("conv" + std::to_string(l), c.hidden, c.hidden, false);
  linear("output", c.hidden, c.classes, true);
  return shapes;
}

}  // namespace strata
