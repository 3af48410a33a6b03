#include "strata/pipeline/backend_state.h"

namespace strata {

LabelsOnBackend::LabelsOnBackend(const kernels::Backend& backend,
                                 const std::vector<std::int32_t>& labels_host,
                                 const std::array<const std::vector<std::uint8_t>*, 3>& masks_host)
    : labels(kernels::to_backend<std::int32_t>(backend, labels_host)),
      masks{kernels::to_backend<std::uint8_t>(backend, *masks_host[0]),
            kernels::to_backend<std::uint8_t>(backend, *masks_host[1]),
            kernels::to_backend<std::uint8_t>(backend, *masks_host[2])} {}

bool backend_all_finite(const kernels::Backend& backend, ConstMatrixView m) {
  if (m.rows == 0 || m.cols == 0) return true;
  kernels::Tensor sums(backend, 1, m.cols);
  backend.column_sums(m, sums.data(), false);
  const Matrix host = kernels::to_host(backend, sums);
  return all_finite(host.view());
}

bool backend_step_is_finite(Communicator& control, OnNan on_nan, std::int64_t epoch,
                            StepValues step, const FlatParameters& parameters) {
  std::vector<float> grads = parameters.grads_on_host();
  std::size_t offset = 0;
  step.parameters.clear();
  for (const TensorShape& s : parameters.shapes()) {
    const std::span<float> g(grads.data() + offset, static_cast<std::size_t>(s.size()));
    step.parameters.push_back({g, g, {}, true});
    offset += g.size();
  }
  return step_is_finite(control, on_nan, epoch, step);
}

void save_backend_parameters(SectionWriter& out, const FlatParameters& parameters,
                             const BackendAdam& adam) {
  for (const std::vector<float>& p : parameters.values_on_host()) out.section<float>(p);
  const AdamState state = adam.state(parameters.sizes());
  out.value(state.step);
  for (std::size_t i = 0; i < state.first_moment.size(); ++i) {
    out.section<float>(state.first_moment[i]);
    out.section<float>(state.second_moment[i]);
  }
}

void load_backend_parameters(SectionReader& in, FlatParameters& parameters, BackendAdam& adam) {
  std::vector<std::vector<float>> values;
  for (const std::int64_t n : parameters.sizes())
    values.push_back(in.section<float>("parameter", static_cast<std::uint64_t>(n)));
  parameters.set_values(values);
  AdamState state;
  state.step = in.value<std::int64_t>("Adam step");
  for (const std::int64_t n : parameters.sizes()) {
    state.first_moment.push_back(in.section<float>("Adam first moment", n));
    state.second_moment.push_back(in.section<float>("Adam second moment", n));
  }
  adam.set_state(state);
}

}  // namespace strata
