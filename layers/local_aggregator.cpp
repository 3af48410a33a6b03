#include "strata/layers/local_aggregator.h"

#include "strata/kernels/kernels.h"

namespace strata {

LocalAggregator::LocalAggregator(const Csr& a_hat)
    : a_hat_(a_hat), a_hat_transposed_(transpose(a_hat)) {
  STRATA_CHECK(a_hat.rows == a_hat.cols, "LocalAggregator: Â is ", a_hat.rows, "x", a_hat.cols);
}

void LocalAggregator::forward(ConstMatrixView in_owned, MatrixView out_owned, int /*layer*/) {
  ++forward_calls_;
  kernels::spmm(a_hat_.view(), in_owned, out_owned);
}

void LocalAggregator::backward(ConstMatrixView grad_out_owned, MatrixView grad_in_owned,
                               int /*layer*/) {
  ++backward_calls_;
  kernels::spmm(a_hat_transposed_.view(), grad_out_owned, grad_in_owned);
}

}  // namespace strata
