// GIN (Xu et al. 2019, as PyG's GINConv with nn = Linear -> ReLU -> Linear):
// Y = MLP((1 + eps) X_i + sum_{j in N(i)} X_j), eps 0 or learnt (--eps-learnable).
#include "conv_model.h"
#include "model_types.h"

namespace strata {

const ModelType& gin_model_type() {
  static const ConvModel type("gin", Propagation::kSum, ConvForm{.mlp = true});
  return type;
}

}  // namespace strata
