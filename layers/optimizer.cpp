#include "strata/layers/optimizer.h"

namespace strata {

Adam::Adam(ParameterList parameters, const AdamConfig& config)
    : parameters_(std::move(parameters)), config_(config) {
  for (const Parameter& p : parameters_) {
    STRATA_CHECK(p.value.size() == p.grad.size(), "Adam: value/grad sizes ", p.value.size(), " vs ",
                 p.grad.size());
    first_moment_.emplace_back(p.value.size(), 0.0f);
    second_moment_.emplace_back(p.value.size(), 0.0f);
  }
}

void Adam::set_state(AdamState state) {
  STRATA_CHECK(state.first_moment.size() == parameters_.size() &&
                   state.second_moment.size() == parameters_.size(),
               "Adam state for ", state.first_moment.size(), " parameters, the optimizer has ",
               parameters_.size());
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    STRATA_CHECK(state.first_moment[i].size() == parameters_[i].value.size() &&
                     state.second_moment[i].size() == parameters_[i].value.size(),
                 "Adam state of parameter ", i, " has the wrong size");
  step_ = state.step;
  first_moment_ = std::move(state.first_moment);
  second_moment_ = std::move(state.second_moment);
}

void Adam::step() {
  ++step_;
  AdamConfig no_decay = config_;
  no_decay.weight_decay = 0.0f;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const Parameter& p = parameters_[i];
    kernels::adam_step(p.value, p.grad, first_moment_[i], second_moment_[i],
                       p.decay ? config_ : no_decay, step_);
  }
}

}  // namespace strata
