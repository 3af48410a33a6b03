// Optimizers over a ParameterList; state is kept per parameter, in list order.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/kernels/kernels.h"
#include "strata/layers/parameter.h"

namespace strata {

using kernels::AdamConfig;

// Everything Adam carries from one step to the next (a checkpoint saves it).
struct AdamState {
  std::int64_t step = 0;
  std::vector<std::vector<float>> first_moment, second_moment;  // per parameter
};

class Adam {
 public:
  // The parameters' storage must outlive the optimizer and keep its address.
  Adam(ParameterList parameters, const AdamConfig& config);

  // One update from the current gradients (weight decay only where Parameter::decay).
  void step();
  std::int64_t steps() const { return step_; }
  const AdamConfig& config() const { return config_; }
  AdamState state() const { return {step_, first_moment_, second_moment_}; }
  // An internal error when the moments do not match the parameters' sizes.
  void set_state(AdamState state);

 private:
  ParameterList parameters_;
  AdamConfig config_;
  std::vector<std::vector<float>> first_moment_;
  std::vector<std::vector<float>> second_moment_;
  std::int64_t step_ = 0;
};

}  // namespace strata
