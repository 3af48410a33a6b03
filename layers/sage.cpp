// GraphSAGE with the mean aggregator (Hamilton et al. 2017, as PyG's SAGEConv):
// Y = mean_{j in N(i)} X_j W + b + X_i W_root.
#include "conv_model.h"
#include "model_types.h"

namespace strata {

const ModelType& sage_model_type() {
  static const ConvModel type("sage", Propagation::kMean, ConvForm{.root_weight = true});
  return type;
}

}  // namespace strata
