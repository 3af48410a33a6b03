// Parameter tensors in one flat buffer of a backend's memory, in a fixed order (a model's
// parameter_shapes order, or a pipeline stage's run of it), and their gradients in another
// of the same layout: one all-reduce and one Adam launch then cover them all.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/kernels/backend.h"
#include "strata/layers/model.h"

namespace strata {

class FlatParameters {
 public:
  // Values start as `initial` (one host vector per shape), gradients at zero.
  FlatParameters(const kernels::Backend& backend, std::vector<TensorShape> shapes,
                 const std::vector<std::vector<float>>& initial);

  std::int64_t count() const { return total_; }  // floats in all tensors
  const std::vector<TensorShape>& shapes() const { return shapes_; }
  std::vector<std::int64_t> sizes() const;
  float* values() { return values_.as<float>(); }
  float* grads() { return grads_.as<float>(); }
  // Tensor t as a rows x cols matrix, and its gradient.
  ConstMatrixView value(std::size_t t) const;
  MatrixView grad(std::size_t t);

  void zero_grad();
  // Host copies, one per tensor; set_values checks every size (an input error names it).
  std::vector<std::vector<float>> values_on_host() const;
  void set_values(const std::vector<std::vector<float>>& tensors);
  // One flat host copy of the gradients (NaN checks read it).
  std::vector<float> grads_on_host() const;

 private:
  const kernels::Backend& backend_;
  std::vector<TensorShape> shapes_;
  std::vector<std::int64_t> offsets_;
  std::int64_t total_ = 0;
  kernels::Buffer values_, grads_;
};

// The initial values of make_model(config)'s parameters [first, first + count) (the whole
// model by default): the CPU model's own draws, so every backend starts where it does.
std::vector<std::vector<float>> initial_parameters(const ModelConfig& config, std::size_t first = 0,
                                                   std::size_t count = SIZE_MAX);

}  // namespace strata
