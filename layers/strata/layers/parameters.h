// A stage's parameter tensors in one flat buffer of a backend's memory, in the model's
// parameter order, with their gradient sums (the backend's gradient type: double on the
// CPU, float on CUDA) and float gradients in buffers of the same layout: one all-reduce
// and one Adam launch then cover them all.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/kernels/backend.h"

namespace strata {

// A parameter tensor: its name ("conv2.weight"), shape, the graph layer whose pipeline
// stage holds it, and how it starts: Glorot-uniform keyed by (seed, glorot_key), or zeros.
struct TensorShape {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  int layer = 0;
  std::int32_t glorot_key = kZeros;
  static constexpr std::int32_t kZeros = -1;
  std::int64_t size() const { return rows * cols; }
};

// Initial values of each tensor (init.h's Glorot draw, or zeros).
std::vector<std::vector<float>> initial_values(const std::vector<TensorShape>& shapes,
                                               std::uint64_t seed);

class Parameters {
 public:
  // Values start as `initial` (one host vector per shape), gradients at zero.
  Parameters(const kernels::Backend& backend, std::vector<TensorShape> shapes,
             const std::vector<std::vector<float>>& initial);

  std::int64_t count() const { return total_; }  // floats in all tensors
  const std::vector<TensorShape>& shapes() const { return shapes_; }
  std::vector<std::int64_t> sizes() const;
  std::vector<std::string> names() const;
  float* values() { return values_.as<float>(); }
  float* grads() { return grads_.as<float>(); }
  // Tensor t as a rows x cols matrix, and where backward adds its gradient.
  ConstMatrixView value(std::size_t t) const;
  kernels::GradientSums sum(std::size_t t);

  // Every tensor's sums, as one buffer of gradient_type() (what the all-reduce sends).
  void* sums() { return sums_data(); }
  std::size_t sums_bytes() const;
  DType gradient_type() const { return backend_.gradient_type(); }

  // Sums and gradients back to zero; grads() = the sums as floats.
  void zero_grad();
  void finish_gradients();
  // Host copies, one per tensor; set_values checks every size (an input error names it).
  std::vector<std::vector<float>> values_on_host() const;
  void set_values(const std::vector<std::vector<float>>& tensors);
  // One flat host copy of the float gradients (NaN checks read it).
  std::vector<float> grads_on_host() const;

 private:
  void* sums_data() { return separate_sums() ? sums_.data() : grads_.data(); }
  bool separate_sums() const { return gradient_type() != DType::kFloat32; }

  const kernels::Backend& backend_;
  std::vector<TensorShape> shapes_;
  std::vector<std::int64_t> offsets_;
  std::int64_t total_ = 0;
  kernels::Buffer values_, grads_, sums_;  // sums_: only where they are not floats
};

}  // namespace strata
