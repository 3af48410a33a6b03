// Single-process aggregation: holds Â and Âᵀ; every row is owned.
#pragma once
#include <cstdint>

#include "strata/graph/csr.h"
#include "strata/layers/aggregator.h"

namespace strata {

class LocalAggregator : public Aggregator {
 public:
  // a_hat must be square (owned rows only, no halo).
  explicit LocalAggregator(const Csr& a_hat);

  LocalId owned_rows() const override { return a_hat_.rows; }
  void forward(ConstMatrixView in_owned, MatrixView out_owned, int layer) override;
  void backward(ConstMatrixView grad_out_owned, MatrixView grad_in_owned, int layer) override;

  // Call counts, for tests that check which exchanges a layer performs.
  std::int64_t forward_calls() const { return forward_calls_; }
  std::int64_t backward_calls() const { return backward_calls_; }

 private:
  Csr a_hat_;
  Csr a_hat_transposed_;
  std::int64_t forward_calls_ = 0;
  std::int64_t backward_calls_ = 0;
};

}  // namespace strata
