// A GCN stack as in PyG's example: dropout(x) -> conv -> relu -> dropout -> conv ...
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/kernels/sparse_features.h"
#include "strata/layers/gcn_layer.h"
#include "strata/layers/model.h"

namespace strata {

class GcnModel : public Model {
 public:
  explicit GcnModel(const ModelConfig& config);

  // Logits for the owned rows; global_ids key the dropout masks. The returned matrix and
  // features_owned must stay valid until backward.
  const Matrix& forward(Aggregator& aggregator, ConstMatrixView features_owned,
                        std::span<const GlobalId> global_ids, bool training,
                        std::int64_t epoch) override;
  // The same with sparse input features. A transform-first layer 0 computes X W by SpMM
  // and dW with Xᵀ; an aggregate-first one (F <= its width) uses a dense copy of X.
  // Input dropout draws the dense path's mask, so both give the same logits. features
  // must stay valid and unchanged until backward (dropout rewrites its own values).
  const Matrix& forward(Aggregator& aggregator, SparseFeatures& features,
                        std::span<const GlobalId> global_ids, bool training,
                        std::int64_t epoch) override;
  // Accumulates parameter gradients from d loss / d logits of the last forward.
  void backward(Aggregator& aggregator, ConstMatrixView grad_logits) override;

  ParameterList parameters() override;
  void zero_grad() override;
  std::vector<GcnLayer>& layers() { return layers_; }
  const ModelConfig& config() const { return config_; }

 private:
  ConstMatrixView layer_input(int l, ConstMatrixView features, std::int64_t rows);
  void begin(std::span<const GlobalId> global_ids, bool training, std::int64_t epoch);
  void run_layer(Aggregator& aggregator, int l, ConstMatrixView input);
  void run_first_sparse(Aggregator& aggregator, SparseFeatures& features);
  void finish_layer(int l);
  bool dropping() const { return training_ && config_.dropout > 0.0f; }

  ModelConfig config_;
  std::vector<GcnLayer> layers_;
  std::vector<Matrix> outputs_;  // layer outputs, ReLU applied except the last
  std::vector<Matrix> dropped_;  // dropout(input) of each layer when dropping
  std::vector<Matrix> grads_;    // gradient w.r.t. each layer's input
  std::vector<GlobalId> ids_;
  bool training_ = false;
  std::int64_t epoch_ = 0;
  bool forward_done_ = false;
};

}  // namespace strata
