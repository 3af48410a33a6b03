// A trainable tensor as an optimizer or an all-reduce sees it: flat value and gradient.
#pragma once
#include <span>
#include <vector>

namespace strata {

struct Parameter {
  std::span<float> value;
  std::span<float> grad;  // same size as value: the gradient the optimizer reads
  // Where backward accumulates the gradient, in double; grad is its float cast. Ranks
  // all-reduce these sums (kernels/cpu/gradient_sums.cpp says why).
  std::span<double> grad_sum;
  bool decay = true;  // whether weight decay applies
};

using ParameterList = std::vector<Parameter>;

}  // namespace strata
