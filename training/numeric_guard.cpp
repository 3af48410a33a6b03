#include "strata/training/numeric_guard.h"

#include <cmath>
#include <optional>

#include "strata/comm/agreed.h"
#include "strata/core/error.h"

namespace strata {
namespace {

bool all_finite(std::span<const float> values) {
  bool finite = true;
  for (float v : values) finite &= std::isfinite(v);
  return finite;
}

// What is not finite on this rank, the first in the order the values were computed.
std::optional<std::string> first_fault(const StepValues& v) {
  if (v.nonfinite_output_layer > 0)
    return cat("the output of layer ", v.nonfinite_output_layer, " is not finite");
  if (v.has_loss && !std::isfinite(v.loss)) return cat("the loss is ", v.loss);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < v.sizes.size(); ++i) {
    const auto n = static_cast<std::size_t>(v.sizes[i]);
    if (!all_finite(std::span(v.gradients).subspan(offset, n)))
      return cat("the gradient of ", v.names[i], " is not finite");
    offset += n;
  }
  return {};
}

}  // namespace

bool all_finite(ConstMatrixView m) {
  bool finite = true;
  for (std::int64_t r = 0; r < m.rows; ++r) {
    const float* row = m.row(r);
    for (std::int64_t c = 0; c < m.cols; ++c) finite &= std::isfinite(row[c]);
  }
  return finite;
}

OnNan parse_on_nan(const std::string& name) {
  if (name == "stop") return OnNan::kStop;
  if (name == "skip-step") return OnNan::kSkipStep;
  throw_input_error("--on-nan must be stop or skip-step, got '", name, "'");
}

bool step_is_finite(Communicator& comm, OnNan on_nan, std::int64_t epoch, const StepValues& v) {
  try {
    run_agreed(comm, [&] {
      if (const std::optional<std::string> fault = first_fault(v))
        throw Error(ErrorKind::kInternal, *fault);
    });
    return true;
  } catch (const AgreedError& e) {
    if (on_nan == OnNan::kSkipStep) return false;
    throw AgreedError(ErrorKind::kInternal,
                      cat("epoch ", epoch, ", ", e.what(),
                          "; training stopped (--on-nan skip-step skips such steps instead; a "
                          "lower --lr often avoids them)"));
  }
}

}  // namespace strata
