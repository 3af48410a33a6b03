// The GCN of gcn_model.h (dropout -> conv -> ReLU -> ... -> conv) on a kernels::Backend:
// parameters, activations and gradients live in the backend's memory, so on the CUDA
// backend a training step never leaves the device. It computes what GcnModel computes,
// with each layer's product order chosen the same way (so the same exchanges); gradients
// are summed in float by the backend's GEMMs rather than in double, so results agree
// with GcnModel to float rounding, not bit for bit.
//
// The aggregator is handed views in the backend's memory. All parameters sit in one flat
// buffer, in parameter_shapes order (W1, b1, W2, b2, ...), and their gradients in another,
// so one all-reduce and one Adam launch cover the whole model.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/kernels/backend.h"
#include "strata/layers/aggregator.h"
#include "strata/layers/model.h"
#include "strata/layers/optimizer.h"

namespace strata {

class BackendGcnModel {
 public:
  // config.kind must be gcn. Weights start as GcnModel's (Glorot keyed by seed and layer).
  BackendGcnModel(const ModelConfig& config, const kernels::Backend& backend);

  // Logits (owned x classes) for the owned rows; features (owned x F) and row_ids (owned
  // global ids, keying dropout) are in backend memory and must stay unchanged until
  // backward, as must the returned tensor.
  const kernels::Tensor& forward(Aggregator& aggregator, ConstMatrixView features,
                                 const GlobalId* row_ids, bool training, std::int64_t epoch);
  // Adds d loss / d parameters of the last forward to the gradients.
  void backward(Aggregator& aggregator, ConstMatrixView grad_logits);
  void zero_grad();

  std::int64_t parameter_count() const { return total_; }
  float* values() { return values_.as<float>(); }
  float* grads() { return grads_.as<float>(); }
  const std::vector<TensorShape>& shapes() const { return shapes_; }
  // Host copies, one per tensor in shapes() order; set_parameters checks every size.
  std::vector<std::vector<float>> parameters() const;
  void set_parameters(const std::vector<std::vector<float>>& tensors);
  // One flat host copy of the gradients (NaN checks read it).
  std::vector<float> gradients() const;

 private:
  int width(int l) const;
  bool dropping() const { return training_ && config_.dropout > 0.0f; }
  ConstMatrixView weight(int l) const;
  MatrixView weight_grad(int l);
  const float* bias(int l) const;
  float* bias_grad(int l);
  ConstMatrixView layer_input(int l, ConstMatrixView features);
  void forward_layer(Aggregator& aggregator, int l, ConstMatrixView x);
  void backward_layer(Aggregator& aggregator, int l, ConstMatrixView grad_y);
  kernels::Tensor& sized(kernels::Tensor& t, std::int64_t rows, std::int64_t cols);

  ModelConfig config_;
  const kernels::Backend& backend_;
  std::vector<TensorShape> shapes_;
  std::vector<std::int64_t> offsets_;  // of each tensor in the flat buffers
  std::int64_t total_ = 0;
  kernels::Buffer values_, grads_;
  // Per layer: output (ReLU applied but on the last), dropout copy of the input, Â X or
  // X W kept for backward, the input as forward saw it, and backward's two temporaries.
  std::vector<kernels::Tensor> outputs_, dropped_, kept_, scratch_, input_grads_;
  std::vector<ConstMatrixView> inputs_;
  const GlobalId* row_ids_ = nullptr;
  bool training_ = false;
  std::int64_t epoch_ = 0;
  bool forward_done_ = false;
};

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
