// Graph-mode aggregation: Â's owned rows times [owned rows; halo rows fetched from peers].
#pragma once
#include "strata/comm/communicator.h"
#include "strata/layers/aggregator.h"
#include "strata/pipeline/halo_exchange.h"

namespace strata {

class HaloAggregator : public Aggregator {
 public:
  // Normalizes with the global degrees the local graph carries.
  HaloAggregator(const LocalGraph& graph, Communicator& comm);

  LocalId owned_rows() const override { return exchange_.owned(); }
  void forward(ConstMatrixView in_owned, MatrixView out_owned, int layer) override;
  void backward(ConstMatrixView grad_out_owned, MatrixView grad_in_owned, int layer) override;

  // Evaluation passes count their halo traffic as kEval instead of kHaloForward.
  void set_evaluation(bool evaluation) { evaluation_ = evaluation; }

 private:
  Csr a_hat_;             // owned x (owned + halo)
  Csr a_hat_transposed_;  // (owned + halo) x owned
  HaloExchange exchange_;
  Matrix extended_;  // (owned + halo) x width
  bool evaluation_ = false;
};

}  // namespace strata
