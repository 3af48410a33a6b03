#include "strata/pipeline/backend_halo.h"

namespace strata {

BackendHaloAggregator::BackendHaloAggregator(const LocalGraph& graph, Communicator& data,
                                             const kernels::Backend& backend)
    : backend_(backend),
      owned_(graph.owned),
      halo_rows_(graph.halo),
      halo_(graph.plan, data, backend) {
  STRATA_CHECK(graph.part == data.rank() && static_cast<int>(graph.plan.send.size()) == data.size(),
               "BackendHaloAggregator: part ", graph.part, " of ", graph.plan.send.size(),
               " on rank ", data.rank(), " of ", data.size());
  const Csr a_hat = gcn_normalize(graph.adjacency, graph.degree_plus_one);
  a_hat_ = backend.sparse(a_hat.view());
  a_hat_transposed_ = backend.sparse(transpose(a_hat).view());
}

void BackendHaloAggregator::forward(ConstMatrixView in_owned, MatrixView out_owned, int) {
  STRATA_CHECK(in_owned.rows == owned_, "aggregate: ", in_owned.rows, " rows, ", owned_, " owned");
  kernels::shaped(backend_, extended_, owned_ + halo_rows_, in_owned.cols);
  backend_.copy(in_owned, extended_.view().rows_range(0, owned_));
  halo_.forward(extended_.view(), evaluation_ ? CommCategory::kEval : CommCategory::kHaloForward);
  a_hat_->multiply(extended_.view(), out_owned);
}

void BackendHaloAggregator::backward(ConstMatrixView grad_out_owned, MatrixView grad_in_owned,
                                     int) {
  kernels::shaped(backend_, extended_, owned_ + halo_rows_, grad_out_owned.cols);
  a_hat_transposed_->multiply(grad_out_owned, extended_.view());
  halo_.backward(extended_.view(), CommCategory::kHaloBackward);
  backend_.copy(extended_.view().rows_range(0, owned_), grad_in_owned);
}

}  // namespace strata
