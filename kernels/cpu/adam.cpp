// Adam (Kingma & Ba) with L2 weight decay folded into the gradient, as torch.optim.Adam.
#include <cmath>

#include "strata/kernels/kernels.h"

namespace strata::kernels {

void adam_step(std::span<float> param, std::span<const float> grad, std::span<float> m,
               std::span<float> v, const AdamConfig& config, std::int64_t step) {
  STRATA_CHECK(grad.size() == param.size() && m.size() == param.size() && v.size() == param.size(),
               "adam_step: sizes ", param.size(), ", ", grad.size(), ", ", m.size(), ", ",
               v.size());
  STRATA_CHECK(step >= 1, "adam_step: step ", step, " (counts from 1)");
  const double t = static_cast<double>(step);
  const float correction1 = static_cast<float>(1.0 - std::pow(double{config.beta1}, t));
  const float correction2 = static_cast<float>(1.0 - std::pow(double{config.beta2}, t));
  const float sqrt_correction2 = std::sqrt(correction2);
  const auto n = static_cast<std::int64_t>(param.size());
  // Each entry on its own: the same bits on any thread count.
#pragma omp parallel for schedule(static) if (n >= 65536)
  for (std::int64_t i = 0; i < n; ++i) {
    const float g = grad[i] + config.weight_decay * param[i];
    m[i] = config.beta1 * m[i] + (1.0f - config.beta1) * g;
    v[i] = config.beta2 * v[i] + (1.0f - config.beta2) * g * g;
    const float denom = std::sqrt(v[i]) / sqrt_correction2 + config.eps;
    param[i] -= config.lr / correction1 * m[i] / denom;
  }
}

}  // namespace strata::kernels
