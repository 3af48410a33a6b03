// The model interface the trainers use, and the configuration every model shares.
//   gcn:   dropout -> GCN conv -> ReLU -> ... -> GCN conv (PyG's example; gcn_model.h)
//   gcnii: input linear, L GCNII convs with initial residual and identity mapping, output
//          linear (Chen et al. 2020, "Simple and Deep Graph Convolutional Networks")
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/matrix.h"
#include "strata/kernels/sparse_features.h"
#include "strata/layers/aggregator.h"
#include "strata/layers/parameter.h"

namespace strata {

enum class ModelKind { kGcn, kGcnii };

struct ModelConfig {
  int in_features = 0;
  int hidden = 16;
  int classes = 0;
  int num_layers = 2;  // graph convolutions, >= 1 (gcnii adds its two linear layers)
  float dropout = 0.5f;
  bool bias = true;  // gcn convs; gcnii convs have none, its linear layers always do
  std::uint64_t seed = 0;
  ModelKind kind = ModelKind::kGcn;
  float alpha = 0.1f;   // gcnii: weight of the initial residual h0 in every conv
  float lambda = 0.5f;  // gcnii: identity mapping beta_l = log(lambda / l + 1)
};

// "gcn" or "gcnii"; anything else is an input error naming the flag.
ModelKind parse_model_kind(std::string_view name);
const char* model_kind_name(ModelKind kind);

class Model {
 public:
  virtual ~Model() = default;
  // Logits for the owned rows; global_ids key the dropout masks. The returned matrix and
  // the features must stay valid and unchanged until backward.
  virtual const Matrix& forward(Aggregator& aggregator, ConstMatrixView features_owned,
                                std::span<const GlobalId> global_ids, bool training,
                                std::int64_t epoch) = 0;
  // The same with sparse features; both paths draw the same masks and give the same logits.
  virtual const Matrix& forward(Aggregator& aggregator, SparseFeatures& features,
                                std::span<const GlobalId> global_ids, bool training,
                                std::int64_t epoch) = 0;
  // Accumulates parameter gradients from d loss / d logits of the last forward.
  virtual void backward(Aggregator& aggregator, ConstMatrixView grad_logits) = 0;
  virtual ParameterList parameters() = 0;
  virtual void zero_grad() = 0;
};

std::unique_ptr<Model> make_model(const ModelConfig& config);

// A parameter tensor's name and shape ("conv1.weight", in x out), row-major.
struct TensorShape {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  std::int64_t size() const { return rows * cols; }
};
// Every parameter of make_model(config), in the order of Model::parameters().
std::vector<TensorShape> parameter_shapes(const ModelConfig& config);

}  // namespace strata
