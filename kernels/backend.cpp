// Buffer and Tensor: a backend's memory, owned.
#include "strata/kernels/backend.h"

#include <utility>

namespace strata::kernels {

Buffer::Buffer(const Backend& backend, std::size_t bytes)
    : backend_(&backend), data_(bytes > 0 ? backend.allocate(bytes) : nullptr), bytes_(bytes) {}

Buffer Buffer::borrowed(void* data, std::size_t bytes) {
  Buffer b;
  b.data_ = data;
  b.bytes_ = bytes;
  return b;
}

Buffer::~Buffer() {
  if (data_ != nullptr && backend_ != nullptr) backend_->release(data_);
}

Buffer::Buffer(Buffer&& other) noexcept
    : backend_(other.backend_),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr && backend_ != nullptr) backend_->release(data_);
    backend_ = std::exchange(other.backend_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

Tensor::Tensor(const Backend& backend, std::int64_t rows, std::int64_t cols)
    : buffer_(backend, static_cast<std::size_t>(rows * cols) * sizeof(float)),
      rows_(rows),
      cols_(cols) {
  STRATA_CHECK(rows >= 0 && cols >= 0, "Tensor: shape ", rows, "x", cols);
  if (buffer_.bytes() > 0) backend.zero(buffer_.data(), buffer_.bytes());
}

Tensor Tensor::view_of(float* data, std::int64_t rows, std::int64_t cols) {
  STRATA_CHECK(rows >= 0 && cols >= 0, "Tensor::view_of: shape ", rows, "x", cols);
  Tensor t;
  t.buffer_ = Buffer::borrowed(data, static_cast<std::size_t>(rows * cols) * sizeof(float));
  t.rows_ = rows;
  t.cols_ = cols;
  return t;
}

Tensor to_backend(const Backend& backend, ConstMatrixView host) {
  STRATA_CHECK(host.stride == host.cols, "to_backend: a strided view");
  Tensor t(backend, host.rows, host.cols);
  if (t.size() > 0)
    backend.upload(t.data(), host.data, static_cast<std::size_t>(t.size()) * sizeof(float));
  return t;
}

Matrix to_host(const Backend& backend, const Tensor& tensor) {
  Matrix host(tensor.rows(), tensor.cols());
  if (host.size() > 0)
    backend.download(host.data(), tensor.data(),
                     static_cast<std::size_t>(host.size()) * sizeof(float));
  return host;
}

Tensor& shaped(const Backend& backend, Tensor& t, std::int64_t rows, std::int64_t cols) {
  if (t.rows() != rows || t.cols() != cols) t = Tensor(backend, rows, cols);
  return t;
}

}  // namespace strata::kernels
