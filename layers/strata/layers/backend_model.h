// A model on a kernels::Backend (what --device cuda trains): its parameters, activations
// and gradients live in the backend's memory, so on the CUDA backend a training step never
// leaves the device. BackendGcnModel and BackendGcniiModel compute what GcnModel and
// GcniiModel compute, from dense or sparse input, with the same dropout masks and the same product
// order (so the same exchanges); gradients are summed in float by the backend's GEMMs rather than
// in double, so results agree with the CPU models to float rounding, not bit for bit.
//
// The aggregator is handed views in the backend's memory. The parameters are one
// FlatParameters in parameter_shapes order, starting at the CPU model's initial values.
#pragma once
#include <cstdint>
#include <memory>

#include "strata/kernels/backend.h"
#include "strata/layers/aggregator.h"
#include "strata/layers/backend_features.h"
#include "strata/layers/flat_parameters.h"
#include "strata/layers/model.h"
#include "strata/layers/optimizer.h"

namespace strata {

class BackendModel {
 public:
  BackendModel(const ModelConfig& config, const kernels::Backend& backend);
  virtual ~BackendModel() = default;

  // Logits (owned x classes) for the owned rows. features (owned x F; the model applies
  // the input dropout to it) and row_ids (owned global ids in backend memory, keying
  // dropout) must stay until backward, as must the returned tensor.
  virtual const kernels::Tensor& forward(Aggregator& aggregator, BackendFeatures& features,
                                         const GlobalId* row_ids, bool training,
                                         std::int64_t epoch) = 0;
  // Adds d loss / d parameters of the last forward to the gradients.
  virtual void backward(Aggregator& aggregator, ConstMatrixView grad_logits) = 0;

  FlatParameters& parameters() { return parameters_; }
  const FlatParameters& parameters() const { return parameters_; }

 protected:
  // Checks the shapes, keeps the pass's settings and drops the features' input.
  void begin(Aggregator& aggregator, BackendFeatures& features, const GlobalId* row_ids,
             bool training, std::int64_t epoch);
  bool dropping() const { return training_ && config_.dropout > 0.0f; }
  void drop(MatrixView m, int layer) const;
  kernels::Tensor& sized(kernels::Tensor& t, std::int64_t rows, std::int64_t cols) {
    return kernels::shaped(backend_, t, rows, cols);
  }

  ModelConfig config_;
  const kernels::Backend& backend_;
  FlatParameters parameters_;
  BackendFeatures* features_ = nullptr;
  const GlobalId* row_ids_ = nullptr;
  bool training_ = false;
  std::int64_t epoch_ = 0;
  bool forward_done_ = false;
};

// BackendGcnModel or BackendGcniiModel, as config.kind says.
std::unique_ptr<BackendModel> make_backend_model(const ModelConfig& config,
                                                 const kernels::Backend& backend);

// A single process's aggregation on a backend: Â and Âᵀ copied in once (LocalAggregator's
// twin).
class BackendLocalAggregator : public Aggregator {
 public:
  BackendLocalAggregator(const Csr& a_hat, const kernels::Backend& backend);
  LocalId owned_rows() const override { return a_hat_->rows(); }
  void forward(ConstMatrixView in, MatrixView out, int layer) override;
  void backward(ConstMatrixView grad_out, MatrixView grad_in, int layer) override;

 private:
  std::unique_ptr<kernels::SparseMatrix> a_hat_, a_hat_transposed_;
};

// Adam (optimizer.h's) over one flat buffer of parameters in backend memory.
class BackendAdam {
 public:
  BackendAdam(const kernels::Backend& backend, std::int64_t size, const kernels::AdamConfig& c);
  void step(float* values, const float* grads);
  void step(FlatParameters& p) { step(p.values(), p.grads()); }
  // The moments as host vectors cut by `sizes` (a checkpoint's layout), and back.
  AdamState state(const std::vector<std::int64_t>& sizes) const;
  void set_state(const AdamState& state);

 private:
  const kernels::Backend& backend_;
  std::int64_t size_;
  kernels::AdamConfig config_;
  kernels::Buffer m_, v_;
  std::int64_t step_ = 0;
};

}  // namespace strata
