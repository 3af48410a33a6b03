#include "strata/pipeline/gradient_reducer.h"

#include <algorithm>

#include "strata/kernels/kernels.h"

namespace strata {

GradientReducer::GradientReducer(ParameterList parameters) : parameters_(std::move(parameters)) {
  std::size_t n = 0;
  for (const Parameter& p : parameters_) n += p.grad_sum.size();
  flat_.resize(n);
}

void GradientReducer::all_reduce(Communicator& comm) {
  if (comm.size() == 1) return;
  double* out = flat_.data();
  for (const Parameter& p : parameters_) out = std::copy(p.grad_sum.begin(), p.grad_sum.end(), out);
  comm.all_reduce_sum(std::as_writable_bytes(std::span(flat_)), DType::kFloat64,
                      CommCategory::kAllReduce);
  const double* in = flat_.data();
  for (const Parameter& p : parameters_) {
    kernels::cast_to_float({in, p.grad_sum.size()}, p.grad);
    in += p.grad_sum.size();
  }
}

}  // namespace strata
