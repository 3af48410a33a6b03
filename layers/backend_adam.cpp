// BackendLocalAggregator and BackendAdam (backend_model.h).
#include "strata/layers/backend_model.h"

namespace strata {

BackendLocalAggregator::BackendLocalAggregator(const Csr& a_hat, const kernels::Backend& backend)
    : a_hat_(backend.sparse(a_hat.view())),
      a_hat_transposed_(backend.sparse(transpose(a_hat).view())) {
  STRATA_CHECK(a_hat.rows == a_hat.cols, "BackendLocalAggregator: Â is ", a_hat.rows, "x",
               a_hat.cols);
}

void BackendLocalAggregator::forward(ConstMatrixView in, MatrixView out, int /*layer*/) {
  a_hat_->multiply(in, out);
}

void BackendLocalAggregator::backward(ConstMatrixView grad_out, MatrixView grad_in, int /*layer*/) {
  a_hat_transposed_->multiply(grad_out, grad_in);
}

BackendAdam::BackendAdam(const kernels::Backend& backend, std::int64_t size,
                         const kernels::AdamConfig& c)
    : backend_(backend),
      size_(size),
      config_(c),
      m_(backend, static_cast<std::size_t>(size) * sizeof(float)),
      v_(backend, static_cast<std::size_t>(size) * sizeof(float)) {
  backend.zero(m_.data(), m_.bytes());
  backend.zero(v_.data(), v_.bytes());
}

void BackendAdam::step(float* values, const float* grads) {
  ++step_;
  backend_.adam_step(values, grads, m_.as<float>(), v_.as<float>(), size_, config_, step_);
}

AdamState BackendAdam::state(const std::vector<std::int64_t>& sizes) const {
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
  STRATA_CHECK(offset == size_, "BackendAdam::state: sizes add up to ", offset, ", not ", size_);
  return state;
}

void BackendAdam::set_state(const AdamState& state) {
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < state.first_moment.size(); ++i) {
    const auto n = static_cast<std::int64_t>(state.first_moment[i].size());
    STRATA_CHECK(
        offset + n <= size_ && state.second_moment[i].size() == state.first_moment[i].size(),
        "BackendAdam::set_state: moments of the wrong size");
    if (n > 0) {
      backend_.upload(m_.as<float>() + offset, state.first_moment[i].data(), n * sizeof(float));
      backend_.upload(v_.as<float>() + offset, state.second_moment[i].data(), n * sizeof(float));
    }
    offset += n;
  }
  STRATA_CHECK(offset == size_, "BackendAdam::set_state: ", offset, " values for ", size_);
  step_ = state.step;
}

}  // namespace strata
