// BackendModel's shared steps and the choice of model.
#include "strata/layers/backend_gcn.h"
#include "strata/layers/backend_gcnii.h"

namespace strata {

BackendModel::BackendModel(const ModelConfig& config, const kernels::Backend& backend)
    : config_(config),
      backend_(backend),
      parameters_(backend, parameter_shapes(config), initial_parameters(config)) {}

void BackendModel::begin(Aggregator& aggregator, BackendFeatures& features, const GlobalId* row_ids,
                         bool training, std::int64_t epoch) {
  STRATA_CHECK(features.rows() == aggregator.owned_rows() && features.cols() == config_.in_features,
               "BackendModel::forward: features are ", features.rows(), "x", features.cols(),
               ", expected ", aggregator.owned_rows(), "x", config_.in_features);
  features_ = &features;
  row_ids_ = row_ids;
  training_ = training;
  epoch_ = epoch;
  features.drop(row_ids, dropping() ? config_.dropout : 0.0f, config_.seed, epoch);
}

void BackendModel::drop(MatrixView m, int layer) const {
  if (dropping()) backend_.dropout(m, row_ids_, config_.dropout, config_.seed, epoch_, layer);
}

std::unique_ptr<BackendModel> make_backend_model(const ModelConfig& config,
                                                 const kernels::Backend& backend) {
  if (config.kind == ModelKind::kGcnii) return std::make_unique<BackendGcniiModel>(config, backend);
  return std::make_unique<BackendGcnModel>(config, backend);
}

}  // namespace strata
