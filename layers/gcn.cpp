// GCN (Kipf & Welling 2017): Y = Â X W + b, Â = D^-1/2 (A + I) D^-1/2.
#include "conv_model.h"
#include "model_types.h"

namespace strata {

const ModelType& gcn_model_type() {
  static const ConvModel type("gcn", Propagation::kGcn, ConvForm{});
  return type;
}

}  // namespace strata
