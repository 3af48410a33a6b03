// Gradient sums of data-parallel ranks (graph mode, a hybrid stage's parts).
#pragma once
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/layers/parameter.h"

namespace strata {

// One flat all-reduce of every gradient sum, in double, then the float cast: the summed
// gradients then almost always equal one process's bit for bit (gradient_sums.cpp).
class GradientReducer {
 public:
  explicit GradientReducer(ParameterList parameters);
  // Collective over comm; nothing to do with one rank (grad already holds the cast).
  void all_reduce(Communicator& comm);

 private:
  ParameterList parameters_;
  std::vector<double> flat_;
};

}  // namespace strata
