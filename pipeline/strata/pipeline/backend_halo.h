// Graph-mode aggregation on a kernels::Backend (HaloAggregator's twin): the halo rows move
// through a BackendHaloExchange, in the backend's memory.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/kernels/backend.h"
#include "strata/layers/aggregator.h"
#include "strata/partition/local_graph.h"
#include "strata/pipeline/backend_halo_exchange.h"

namespace strata {

class BackendHaloAggregator : public Aggregator {
 public:
  // data: a communicator over the backend's memory, rank graph.part of the parts.
  BackendHaloAggregator(const LocalGraph& graph, Communicator& data,
                        const kernels::Backend& backend);

  LocalId owned_rows() const override { return owned_; }
  void forward(ConstMatrixView in_owned, MatrixView out_owned, int layer) override;
  void backward(ConstMatrixView grad_out_owned, MatrixView grad_in_owned, int layer) override;
  // Evaluation passes count their halo traffic as kEval.
  void set_evaluation(bool evaluation) { evaluation_ = evaluation; }

 private:
  const kernels::Backend& backend_;
  LocalId owned_, halo_rows_;
  BackendHaloExchange halo_;
  std::unique_ptr<kernels::SparseMatrix> a_hat_, a_hat_transposed_;
  kernels::Tensor extended_;
  bool evaluation_ = false;
};

}  // namespace strata
