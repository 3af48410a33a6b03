#include "strata/layers/flat_parameters.h"

#include <algorithm>

namespace strata {
namespace {

constexpr std::size_t kFloat = sizeof(float);

}  // namespace

FlatParameters::FlatParameters(const kernels::Backend& backend, std::vector<TensorShape> shapes,
                               const std::vector<std::vector<float>>& initial)
    : backend_(backend), shapes_(std::move(shapes)) {
  for (const TensorShape& s : shapes_) {
    offsets_.push_back(total_);
    total_ += s.size();
  }
  values_ = kernels::Buffer(backend, static_cast<std::size_t>(total_) * kFloat);
  grads_ = kernels::Buffer(backend, static_cast<std::size_t>(total_) * kFloat);
  set_values(initial);
  zero_grad();
}

std::vector<std::int64_t> FlatParameters::sizes() const {
  std::vector<std::int64_t> sizes;
  for (const TensorShape& s : shapes_) sizes.push_back(s.size());
  return sizes;
}

ConstMatrixView FlatParameters::value(std::size_t t) const {
  const TensorShape& s = shapes_[t];
  return {values_.as<float>() + offsets_[t], s.rows, s.cols, s.cols};
}

MatrixView FlatParameters::grad(std::size_t t) {
  const TensorShape& s = shapes_[t];
  return {grads_.as<float>() + offsets_[t], s.rows, s.cols, s.cols};
}

void FlatParameters::zero_grad() {
  backend_.zero(grads_.data(), grads_.bytes());
}

std::vector<std::vector<float>> FlatParameters::values_on_host() const {
  std::vector<std::vector<float>> out;
  for (std::size_t t = 0; t < shapes_.size(); ++t) {
    out.emplace_back(static_cast<std::size_t>(shapes_[t].size()));
    if (!out.back().empty())
      backend_.download(out.back().data(), values_.as<float>() + offsets_[t],
                        out.back().size() * kFloat);
  }
  return out;
}

void FlatParameters::set_values(const std::vector<std::vector<float>>& tensors) {
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

std::vector<float> FlatParameters::grads_on_host() const {
  std::vector<float> out(static_cast<std::size_t>(total_));
  if (!out.empty()) backend_.download(out.data(), grads_.data(), out.size() * kFloat);
  return out;
}

std::vector<std::vector<float>> initial_parameters(const ModelConfig& config, std::size_t first,
                                                   std::size_t count) {
  const std::unique_ptr<Model> model = make_model(config);
  const ParameterList all = model->parameters();
  STRATA_CHECK(first <= all.size(), "initial_parameters: tensor ", first, " of ", all.size());
  const std::size_t end = first + std::min(count, all.size() - first);
  std::vector<std::vector<float>> out;
  for (std::size_t t = first; t < end; ++t)
    out.emplace_back(all[t].value.begin(), all[t].value.end());
  return out;
}

}  // namespace strata
