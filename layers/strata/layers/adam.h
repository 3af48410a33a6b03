// Adam (as torch.optim.Adam, L2 weight decay added to the gradient) over one flat buffer
// of parameters in a backend's memory.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/kernels/backend.h"
#include "strata/layers/parameters.h"

namespace strata {

using kernels::AdamConfig;

// Everything Adam carries from one step to the next (a checkpoint saves it).
struct AdamState {
  std::int64_t step = 0;
  std::vector<std::vector<float>> first_moment, second_moment;  // per tensor
};

class Adam {
 public:
  Adam(const kernels::Backend& backend, std::int64_t size, const AdamConfig& config);
  // One update of p's values from its float gradients.
  void step(Parameters& p);
  std::int64_t steps() const { return step_; }
  // The moments as host vectors cut by `sizes` (the tensors' sizes), and back.
  AdamState state(const std::vector<std::int64_t>& sizes) const;
  void set_state(const AdamState& state);

 private:
  const kernels::Backend& backend_;
  std::int64_t size_;
  AdamConfig config_;
  kernels::Buffer m_, v_;
  std::int64_t step_ = 0;
};

}  // namespace strata
