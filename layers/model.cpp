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

}  // namespace strata
