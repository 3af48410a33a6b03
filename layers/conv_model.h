// The family of models whose layers are graph convolutions Y = agg(X) W [+ X W_root] + b
// with ReLU between them, all run by conv_stage.h: GCN (Kipf & Welling 2017; Â with
// self-loops, no root weight), GraphSAGE (Hamilton et al. 2017, PyG's SAGEConv with the
// mean aggregator; Ā = D^-1 A, a root weight) and GIN (Xu et al. 2019, PyG's GINConv with
// a 2-layer MLP; A + I and eps, the conv being the MLP's first linear layer). A member is
// its name, its propagation and its form (ConvForm: a root weight, an MLP).
#pragma once
#include "conv_stage.h"
#include "strata/layers/model.h"

namespace strata {

class ConvModel : public ModelType {
 public:
  ConvModel(const char* name, Propagation propagation, ConvForm form)
      : name_(name), propagation_(propagation), form_(form) {}

  const char* name() const override { return name_; }
  Propagation propagation() const override { return propagation_; }
  std::vector<TensorShape> parameters(const ModelConfig& c) const override;
  ModelShape shape(const ModelConfig& c, const GraphSize& g) const override;
  std::int64_t stage_floats(const ModelConfig& c, int first, int last,
                            const StageRows& rows) const override;
  std::int64_t stage_width(const ModelConfig& c, int first, int last) const override;
  std::int64_t scratch_floats(const ModelConfig& c, int first, int last, const StageRows& rows,
                              std::int64_t block) const override;
  bool multiplies_features(const ModelConfig& c) const override;
  std::unique_ptr<Stage> make_stage(const StageSetup& setup, int first, int last) const override;

 private:
  bool learns_eps(const ModelConfig& c) const { return form_.mlp && c.learn_eps; }

  const char* name_;
  Propagation propagation_;
  ConvForm form_;
};

}  // namespace strata
