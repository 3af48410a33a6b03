// The registry of models: one ModelType per ModelKind, found by name.
#include <algorithm>
#include <array>

#include "model_types.h"
#include "strata/core/error.h"
#include "strata/layers/model.h"

namespace strata {
namespace {

// In ModelKind's order.
const std::array<const ModelType*, 5>& registry() {
  static const std::array<const ModelType*, 5> types{&gcn_model_type(), &gcnii_model_type(),
                                                     &sage_model_type(), &gin_model_type(),
                                                     &gat_model_type()};
  return types;
}

}  // namespace

const ModelType& model_type(ModelKind kind) {
  const auto i = static_cast<std::size_t>(kind);
  STRATA_CHECK(i < registry().size(), "model kind ", i, " is not registered");
  return *registry()[i];
}

ModelKind parse_model_kind(std::string_view name) {
  for (std::size_t i = 0; i < registry().size(); ++i)
    if (name == registry()[i]->name()) return static_cast<ModelKind>(i);
  throw_input_error("--model: unknown model '", name, "' (available: ", model_names(), ")");
}

const char* model_kind_name(ModelKind kind) {
  return model_type(kind).name();
}

std::string model_names() {
  std::string names;
  for (const ModelType* t : registry()) names += cat(names.empty() ? "" : ", ", t->name());
  return names;
}

std::vector<TensorShape> parameter_shapes(const ModelConfig& c) {
  return model_type(c.kind).parameters(c);
}

std::pair<std::size_t, std::size_t> stage_tensor_range(const ModelConfig& c, int first, int last) {
  const std::vector<TensorShape> shapes = parameter_shapes(c);
  const auto at = [&](int layer) {
    return static_cast<std::size_t>(
        std::find_if(shapes.begin(), shapes.end(),
                     [&](const TensorShape& s) { return s.layer >= layer; }) -
        shapes.begin());
  };
  return {at(first), at(last)};
}

std::unique_ptr<Stage> make_stage(const StageSetup& setup, int first, int last) {
  return model_type(setup.model.kind).make_stage(setup, first, last);
}

}  // namespace strata
