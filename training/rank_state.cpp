#include "strata/training/rank_state.h"

namespace strata {

LabelsOnBackend::LabelsOnBackend(const kernels::Backend& backend, const StageLabels& host)
    : labels(kernels::to_backend<std::int32_t>(backend, host.labels)),
      masks{kernels::to_backend<std::uint8_t>(backend, host.masks[0]),
            kernels::to_backend<std::uint8_t>(backend, host.masks[1]),
            kernels::to_backend<std::uint8_t>(backend, host.masks[2])} {}

bool backend_all_finite(const kernels::Backend& backend, ConstMatrixView m) {
  if (m.rows == 0 || m.cols == 0) return true;
  kernels::Tensor sums(backend, 1, m.cols);
  backend.column_sums(m, sums.data(), false);
  const Matrix host = kernels::to_host(backend, sums);
  return all_finite(host.view());
}

bool step_is_finite(Communicator& comm, OnNan on_nan, std::int64_t epoch, StepValues step,
                    const Parameters& parameters) {
  step.gradients = parameters.grads_on_host();
  step.sizes = parameters.sizes();
  step.names = parameters.names();
  return step_is_finite(comm, on_nan, epoch, step);
}

void save_parameters(SectionWriter& out, const Parameters& parameters, const Adam& adam) {
  for (const std::vector<float>& p : parameters.values_on_host()) out.section<float>(p);
  const AdamState state = adam.state(parameters.sizes());
  out.value(state.step);
  for (std::size_t i = 0; i < state.first_moment.size(); ++i) {
    out.section<float>(state.first_moment[i]);
    out.section<float>(state.second_moment[i]);
  }
}

void load_parameters(SectionReader& in, Parameters& parameters, Adam& adam) {
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

void save_tensors(SectionWriter& out, const kernels::Backend& backend,
                  const std::vector<kernels::Tensor*>& tensors) {
  for (const kernels::Tensor* t : tensors)
    out.section<float>(kernels::to_host(backend, *t).storage());
}

void load_tensors(SectionReader& in, const kernels::Backend& backend,
                  const std::vector<kernels::Tensor*>& tensors) {
  for (kernels::Tensor* t : tensors) {
    const std::vector<float> values =
        in.section<float>("buffer", static_cast<std::uint64_t>(t->size()));
    if (!values.empty()) backend.upload(t->data(), values.data(), values.size() * sizeof(float));
  }
}

void save_buffers(SectionWriter& out, const kernels::Backend& backend,
                  const std::vector<kernels::Buffer*>& buffers) {
  for (const kernels::Buffer* b : buffers) {
    std::vector<std::uint8_t> bytes(b->bytes());
    backend.download(bytes.data(), b->data(), bytes.size());
    out.section<std::uint8_t>(bytes);
  }
}

void load_buffers(SectionReader& in, const kernels::Backend& backend,
                  const std::vector<kernels::Buffer*>& buffers) {
  for (kernels::Buffer* b : buffers) {
    const std::vector<std::uint8_t> bytes = in.section<std::uint8_t>("stored buffer", b->bytes());
    if (!bytes.empty()) backend.upload(b->data(), bytes.data(), bytes.size());
  }
}

}  // namespace strata
