// The one place a layer touches the graph: Y = Â X over the rows a rank owns. In graph
// mode an implementation fetches halo rows (pipeline/); the layer knows nothing of MPI.
#pragma once
#include "strata/core/matrix.h"
#include "strata/core/types.h"

namespace strata {

class Aggregator {
 public:
  virtual ~Aggregator() = default;
  // Rows this rank computes (owned vertices).
  virtual LocalId owned_rows() const = 0;
  // out (owned x w) = Â · in, where in holds the owned rows (owned x w). `layer` tags
  // the exchange for counters and message matching.
  virtual void forward(ConstMatrixView in_owned, MatrixView out_owned, int layer) = 0;
  // grad_in (owned x w) = Âᵀ · grad_out, with the contributions of every rank added.
  virtual void backward(ConstMatrixView grad_out_owned, MatrixView grad_in_owned, int layer) = 0;
};

}  // namespace strata
