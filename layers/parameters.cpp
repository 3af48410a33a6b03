#include "strata/layers/parameters.h"

#include "strata/layers/init.h"

namespace strata {
namespace {

constexpr std::size_t kFloat = sizeof(float);

}  // namespace

std::vector<std::vector<float>> initial_values(const std::vector<TensorShape>& shapes,
                                               std::uint64_t seed) {
  std::vector<std::vector<float>> values;
  for (const TensorShape& s : shapes) {
    std::vector<float>& v = values.emplace_back(static_cast<std::size_t>(s.size()), 0.0f);
    if (s.glorot_key != TensorShape::kZeros)
      glorot_uniform({v.data(), s.rows, s.cols, s.cols}, seed, s.glorot_key);
  }
  return values;
}

Parameters::Parameters(const kernels::Backend& backend, std::vector<TensorShape> shapes,
                       const std::vector<std::vector<float>>& initial)
    : backend_(backend), shapes_(std::move(shapes)) {
  for (const TensorShape& s : shapes_) {
    offsets_.push_back(total_);
    total_ += s.size();
  }
  values_ = kernels::Buffer(backend, static_cast<std::size_t>(total_) * kFloat);
  grads_ = kernels::Buffer(backend, static_cast<std::size_t>(total_) * kFloat);
  if (separate_sums()) sums_ = kernels::Buffer(backend, sums_bytes());
  set_values(initial);
  zero_grad();
}

std::vector<std::int64_t> Parameters::sizes() const {
  std::vector<std::int64_t> sizes;
  for (const TensorShape& s : shapes_) sizes.push_back(s.size());
  return sizes;
}

std::vector<std::string> Parameters::names() const {
  std::vector<std::string> names;
  for (const TensorShape& s : shapes_) names.push_back(s.name);
  return names;
}

ConstMatrixView Parameters::value(std::size_t t) const {
  const TensorShape& s = shapes_[t];
  return {values_.as<float>() + offsets_[t], s.rows, s.cols, s.cols};
}

kernels::GradientSums Parameters::sum(std::size_t t) {
  const TensorShape& s = shapes_[t];
  const std::size_t offset = static_cast<std::size_t>(offsets_[t]) * dtype_size(gradient_type());
  return {static_cast<std::byte*>(sums_data()) + offset, s.rows, s.cols};
}

std::size_t Parameters::sums_bytes() const {
  return static_cast<std::size_t>(total_) * dtype_size(gradient_type());
}

void Parameters::zero_grad() {
  backend_.zero(grads_.data(), grads_.bytes());
  if (separate_sums()) backend_.zero(sums_.data(), sums_.bytes());
}

void Parameters::finish_gradients() {
  backend_.cast_gradients(sums_data(), grads(), total_);
}

std::vector<std::vector<float>> Parameters::values_on_host() const {
  std::vector<std::vector<float>> out;
  for (std::size_t t = 0; t < shapes_.size(); ++t) {
    out.emplace_back(static_cast<std::size_t>(shapes_[t].size()));
    if (!out.back().empty())
      backend_.download(out.back().data(), values_.as<float>() + offsets_[t],
                        out.back().size() * kFloat);
  }
  return out;
}

void Parameters::set_values(const std::vector<std::vector<float>>& tensors) {
  STRATA_REQUIRE(tensors.size() == shapes_.size(), "the model has ", shapes_.size(),
                 " parameter tensors, ", tensors.size(), " were given");
  for (std::size_t t = 0; t < shapes_.size(); ++t) {
    STRATA_REQUIRE(static_cast<std::int64_t>(tensors[t].size()) == shapes_[t].size(), "tensor ",
                   shapes_[t].name, " has ", shapes_[t].size(), " values, ", tensors[t].size(),
                   " were given");
    if (!tensors[t].empty())
      backend_.upload(values_.as<float>() + offsets_[t], tensors[t].data(),
                      tensors[t].size() * kFloat);
  }
}

std::vector<float> Parameters::grads_on_host() const {
  std::vector<float> out(static_cast<std::size_t>(total_));
  if (!out.empty()) backend_.download(out.data(), grads_.data(), out.size() * kFloat);
  return out;
}

}  // namespace strata
