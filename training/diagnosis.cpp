#include "strata/training/diagnosis.h"

#include <cmath>

namespace strata {
namespace {

std::vector<Matrix> host_copies(const kernels::Backend& backend,
                                const std::vector<const kernels::Tensor*>& tensors) {
  std::vector<Matrix> copies;
  for (const kernels::Tensor* t : tensors) copies.push_back(kernels::to_host(backend, *t));
  return copies;
}

void upload(const kernels::Backend& backend, const std::vector<Matrix>& from,
            const std::vector<kernels::Tensor*>& to) {
  for (std::size_t i = 0; i < to.size(); ++i)
    if (from[i].size() > 0)
      backend.upload(to[i]->data(), from[i].data(),
                     static_cast<std::size_t>(from[i].size()) * sizeof(float));
}

void zero(const kernels::Backend& backend, const std::vector<kernels::Tensor*>& tensors) {
  for (kernels::Tensor* t : tensors)
    backend.zero(t->data(), static_cast<std::size_t>(t->size()) * sizeof(float));
}

void compare_gradients(const std::vector<float>& chunked, const std::vector<float>& exact,
                       Diagnosis& d) {
  for (std::size_t i = 0; i < chunked.size(); ++i) {
    d.dot += double{chunked[i]} * exact[i];
    d.chunked_norm2 += double{chunked[i]} * chunked[i];
    d.exact_norm2 += double{exact[i]} * exact[i];
  }
}

void compare_outputs(const std::vector<Matrix>& chunked, const std::vector<Matrix>& exact,
                     int first_layer, Diagnosis& d) {
  for (std::size_t l = 0; l < chunked.size(); ++l) {
    const auto global = static_cast<std::size_t>(first_layer) + l;
    for (std::int64_t i = 0; i < exact[l].size(); ++i) {
      const double e = exact[l].data()[i], diff = chunked[l].data()[i] - e;
      d.error2[global] += diff * diff;
      d.norm2[global] += e * e;
    }
  }
}

}  // namespace

Diagnosis compare_with_exact(Stage& stage, const kernels::Backend& backend, const ExactPass& exact,
                             std::int64_t epoch) {
  Parameters& parameters = stage.parameters();
  Diagnosis d;
  d.error2.assign(static_cast<std::size_t>(exact.layers), 0.0);
  d.norm2 = d.error2;
  const std::vector<float> chunked_grads = parameters.grads_on_host();
  const std::vector<Matrix> chunked_outputs = host_copies(backend, stage.layer_outputs());
  const std::vector<kernels::Tensor*> carried = stage.carried_buffers();
  const std::vector<Matrix> kept = host_copies(backend, {carried.begin(), carried.end()});
  STRATA_CHECK(stage.stored_buffers().empty(),  // (modes.cpp refuses --diagnose with them)
               "--diagnose with a history stored in bf16");
  zero(backend, carried);  // the exact step carries nothing in
  parameters.zero_grad();
  stage.begin_epoch(epoch, true);
  d.exact_loss = forward_pass(exact.passes, stage, exact.whole, {0}, true, exact.chunk_loss);
  backward_pass(exact.passes, stage, exact.whole, {0});
  exact.reduce_gradients();
  compare_gradients(chunked_grads, parameters.grads_on_host(), d);
  compare_outputs(chunked_outputs, host_copies(backend, stage.layer_outputs()), exact.first_layer,
                  d);
  upload(backend, kept, carried);
  backend.upload(parameters.grads(), chunked_grads.data(), chunked_grads.size() * sizeof(float));
  return d;
}

void report_diagnosis(Communicator& comm, const Diagnosis& mine, EpochMetrics& m) {
  std::vector<double> all{mine.dot, mine.chunked_norm2, mine.exact_norm2, mine.exact_loss};
  all.insert(all.end(), mine.error2.begin(), mine.error2.end());
  all.insert(all.end(), mine.norm2.begin(), mine.norm2.end());
  comm.all_reduce_sum(std::as_writable_bytes(std::span(all)), DType::kFloat64,
                      CommCategory::kControl);
  const double norms = std::sqrt(all[1] * all[2]);
  m.gradient_cosine = norms > 0 ? all[0] / norms : 0.0;
  m.exact_loss = all[3];
  const std::size_t layers = mine.error2.size();
  m.layer_error.clear();
  for (std::size_t l = 0; l < layers; ++l) {
    const double norm2 = all[4 + layers + l];
    m.layer_error.push_back(norm2 > 0 ? std::sqrt(all[4 + l] / norm2) : 0.0);
  }
}

}  // namespace strata
