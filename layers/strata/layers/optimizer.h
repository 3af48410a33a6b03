// Optimizers over a ParameterList; state is kept per parameter, in list order.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/kernels/kernels.h"
#include "strata/layers/parameter.h"

namespace strata {

using kernels::AdamConfig;

class Adam {
 public:
  // The parameters' storage must outlive the optimizer and keep its address.
  Adam(ParameterList parameters, const AdamConfig& config);

  // One update from the current gradients (weight decay only where Parameter::decay).
  void step();
  std::int64_t steps() const { return step_; }
  const AdamConfig& config() const { return config_; }

 private:
  ParameterList parameters_;
  AdamConfig config_;
  std::vector<std::vector<float>> first_moment_;
  std::vector<std::vector<float>> second_moment_;
  std::int64_t step_ = 0;
};

}  // namespace strata
