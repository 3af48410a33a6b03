#include "strata/pipeline/halo_aggregator.h"

#include "strata/kernels/kernels.h"

namespace strata {
namespace {

void ensure_shape(Matrix& m, std::int64_t rows, std::int64_t cols) {
  if (m.rows() != rows || m.cols() != cols) m = Matrix(rows, cols);
}

}  // namespace

HaloAggregator::HaloAggregator(const LocalGraph& graph, Communicator& comm)
    : a_hat_(gcn_normalize(graph.adjacency, graph.degree_plus_one)),
      a_hat_transposed_(transpose(a_hat_)),
      exchange_(graph, comm) {}

void HaloAggregator::forward(ConstMatrixView in_owned, MatrixView out_owned, int /*layer*/) {
  const LocalId owned = exchange_.owned();
  STRATA_CHECK(in_owned.rows == owned, "aggregate: ", in_owned.rows, " rows, ", owned, " owned");
  ensure_shape(extended_, owned + exchange_.halo(), in_owned.cols);
  kernels::copy(in_owned, extended_.view().rows_range(0, owned));
  exchange_.forward(extended_.view(),
                    evaluation_ ? CommCategory::kEval : CommCategory::kHaloForward);
  kernels::spmm(a_hat_.view(), extended_.view(), out_owned);
}

void HaloAggregator::backward(ConstMatrixView grad_out_owned, MatrixView grad_in_owned,
                              int /*layer*/) {
  const LocalId owned = exchange_.owned();
  ensure_shape(extended_, owned + exchange_.halo(), grad_out_owned.cols);
  kernels::spmm(a_hat_transposed_.view(), grad_out_owned, extended_.view());
  exchange_.backward(extended_.view(), CommCategory::kHaloBackward);
  kernels::copy(extended_.view().rows_range(0, owned), grad_in_owned);
}

}  // namespace strata
