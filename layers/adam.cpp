#include "strata/layers/adam.h"

namespace strata {

Adam::Adam(const kernels::Backend& backend, std::int64_t size, const AdamConfig& config)
    : backend_(backend),
      size_(size),
      config_(config),
      m_(backend, static_cast<std::size_t>(size) * sizeof(float)),
      v_(backend, static_cast<std::size_t>(size) * sizeof(float)) {
  backend.zero(m_.data(), m_.bytes());
  backend.zero(v_.data(), v_.bytes());
}

void Adam::step(Parameters& p) {
  STRATA_CHECK(p.count() == size_, "Adam over ", size_, " values stepped with ", p.count());
  ++step_;
  backend_.adam_step(p.values(), p.grads(), m_.as<float>(), v_.as<float>(), size_, config_, step_);
}

AdamState Adam::state(const std::vector<std::int64_t>& sizes) const {
  AdamState state;
  state.step = step_;
  std::int64_t offset = 0;
  for (const std::int64_t n : sizes) {
    for (auto [moment, out] : {std::pair{&m_, &state.first_moment}, {&v_, &state.second_moment}}) {
      out->emplace_back(static_cast<std::size_t>(n));
      if (n > 0)
        backend_.download(out->back().data(), moment->as<float>() + offset,
                          static_cast<std::size_t>(n) * sizeof(float));
    }
    offset += n;
  }
  STRATA_CHECK(offset == size_, "Adam::state: sizes add up to ", offset, ", not ", size_);
  return state;
}

void Adam::set_state(const AdamState& state) {
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < state.first_moment.size(); ++i) {
    const auto n = static_cast<std::int64_t>(state.first_moment[i].size());
    STRATA_CHECK(
        offset + n <= size_ && state.second_moment[i].size() == state.first_moment[i].size(),
        "Adam::set_state: moments of the wrong size");
    if (n > 0) {
      backend_.upload(m_.as<float>() + offset, state.first_moment[i].data(), n * sizeof(float));
      backend_.upload(v_.as<float>() + offset, state.second_moment[i].data(), n * sizeof(float));
    }
    offset += n;
  }
  STRATA_CHECK(offset == size_, "Adam::set_state: ", offset, " values for ", size_);
  step_ = state.step;
}

}  // namespace strata
