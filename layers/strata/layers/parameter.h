// A trainable tensor as an optimizer or an all-reduce sees it: flat value and gradient.
#pragma once
#include <span>
#include <vector>

namespace strata {

struct Parameter {
  std::span<float> value;
  std::span<float> grad;  // same size as value; accumulated by backward
  bool decay = true;      // whether weight decay applies
};

using ParameterList = std::vector<Parameter>;

}  // namespace strata
