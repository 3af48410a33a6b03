// The family of models whose layers are graph convolutions Y = agg(X) W [+ X W_root] + b
// with ReLU between them, all run by conv_stage.h: GCN (Kipf & Welling 2017; Â with
// self-loops, no root weight) and GraphSAGE (Hamilton et al. 2017, PyG's SAGEConv with
// the mean aggregator; Ā = D^-1 A, a root weight). A member is its name, its propagation
// and whether it has a root weight.
#pragma once
#include "strata/layers/model.h"

namespace strata {

class ConvModel : public ModelType {
 public:
  ConvModel(const char* name, Propagation propagation, bool root_weight)
      : name_(name), propagation_(propagation), root_weight_(root_weight) {}

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
  const char* name_;
  Propagation propagation_;
  bool root_weight_;
};

}  // namespace strata
