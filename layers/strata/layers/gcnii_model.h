// GCNII over the rows a rank owns (Chen et al. 2020), as PyG's GCN2Conv example:
//   h0 = relu(dropout(x) W_in + b_in)
//   h_l = relu(GcniiConv_l(Â dropout(h_{l-1}), h0)),  l = 1..L,  h_0 = h0
//   logits = dropout(h_L) W_out + b_out
// Dropout masks are keyed by layer 0 (input), l (conv l) and L + 1 (output). The
// aggregation of conv l is tagged l - 1 for the Aggregator (the comm model's layer).
#pragma once
#include <vector>

#include "strata/layers/gcnii_conv.h"
#include "strata/layers/linear.h"
#include "strata/layers/model.h"

namespace strata {

class GcniiModel : public Model {
 public:
  explicit GcniiModel(const ModelConfig& config);

  const Matrix& forward(Aggregator& aggregator, ConstMatrixView features_owned,
                        std::span<const GlobalId> global_ids, bool training,
                        std::int64_t epoch) override;
  const Matrix& forward(Aggregator& aggregator, SparseFeatures& features,
                        std::span<const GlobalId> global_ids, bool training,
                        std::int64_t epoch) override;
  void backward(Aggregator& aggregator, ConstMatrixView grad_logits) override;
  ParameterList parameters() override;
  void zero_grad() override;

  Linear& input() { return input_; }
  Linear& output() { return output_; }
  std::vector<GcniiConv>& convs() { return convs_; }

 private:
  void begin(Aggregator& aggregator, std::span<const GlobalId> ids, bool training,
             std::int64_t epoch);
  void drop(MatrixView m, int layer) const;
  const Matrix& run_convs(Aggregator& aggregator);
  void backward_convs(Aggregator& aggregator);
  void cast_gradients();

  ModelConfig config_;
  Linear input_;
  std::vector<GcniiConv> convs_;
  Linear output_;
  std::vector<GlobalId> ids_;
  bool training_ = false;
  std::int64_t epoch_ = 0;
  ConstMatrixView dense_input_;  // dropped dense x (forward's), or empty for sparse input
  SparseFeatures* sparse_input_ = nullptr;
  Matrix dropped_x_, h0_, q_, logits_;
  std::vector<Matrix> p_, s_, y_;  // per conv: dropped input, s, relu output
  Matrix grad_h_, grad_h0_, grad_z_;
  bool forward_done_ = false;
};

}  // namespace strata
