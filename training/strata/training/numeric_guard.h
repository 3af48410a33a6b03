// Numerical faults: after each backward pass, before the optimizer step, every rank checks
// its share of the loss, of the layer outputs and of the gradients for NaN and inf. The
// ranks agree on the outcome, so all stop (or all skip the step) together.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/core/matrix.h"

namespace strata {

enum class OnNan { kStop, kSkipStep };
// "stop" or "skip-step"; anything else is an input error naming --on-nan.
OnNan parse_on_nan(const std::string& name);

// One rank's values of a training step.
struct StepValues {
  bool has_loss = false;  // the rank computed part of the loss
  double loss = 0;
  // The first (1-based) layer whose output on this rank held NaN or inf; 0: none. The
  // outputs are checked when computed (backward may reuse their storage).
  int nonfinite_output_layer = 0;
  // The float gradients after backward (and the all-reduce), tensor after tensor: tensor i
  // is sizes[i] values named names[i] ("conv2.weight").
  std::vector<float> gradients;
  std::vector<std::int64_t> sizes;
  std::vector<std::string> names;
};

bool all_finite(ConstMatrixView m);

// Collective. True when every rank's values are finite. Otherwise, with kStop every rank
// throws the same error naming the epoch, the lowest failing rank and the first
// non-finite value there (loss, a layer's output, a gradient); with kSkipStep it returns
// false on every rank.
bool step_is_finite(Communicator& comm, OnNan on_nan, std::int64_t epoch, const StepValues& v);

}  // namespace strata
