// Dense row-major float matrices: an owning Matrix and non-owning views passed to kernels.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/error.h"

namespace strata {

struct MatrixView {
  float* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t stride = 0;  // elements between consecutive rows (>= cols)

  float* row(std::int64_t r) const { return data + r * stride; }
  float& at(std::int64_t r, std::int64_t c) const { return data[r * stride + c]; }
  MatrixView rows_range(std::int64_t begin, std::int64_t end) const {
    return {data + begin * stride, end - begin, cols, stride};
  }
};

struct ConstMatrixView {
  const float* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t stride = 0;

  ConstMatrixView() = default;
  ConstMatrixView(const float* d, std::int64_t r, std::int64_t c, std::int64_t s)
      : data(d), rows(r), cols(c), stride(s) {}
  ConstMatrixView(MatrixView v) : data(v.data), rows(v.rows), cols(v.cols), stride(v.stride) {}

  const float* row(std::int64_t r) const { return data + r * stride; }
  float at(std::int64_t r, std::int64_t c) const { return data[r * stride + c]; }
  ConstMatrixView rows_range(std::int64_t begin, std::int64_t end) const {
    return {data + begin * stride, end - begin, cols, stride};
  }
};

// Rows of bfloat16 values, 2 bytes each (RowCodec::kBf16's layout), rows packed.
struct Bf16RowsView {
  const std::uint16_t* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;

  const std::uint16_t* row(std::int64_t r) const { return data + r * cols; }
};

class Matrix {
 public:
  Matrix() = default;
  Matrix(std::int64_t rows, std::int64_t cols, float fill = 0.0f)
      : rows_(rows), cols_(cols), data_(static_cast<std::size_t>(rows * cols), fill) {
    STRATA_CHECK(rows >= 0 && cols >= 0, "negative matrix shape ", rows, "x", cols);
  }

  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t size() const { return rows_ * cols_; }
  float* data() { return data_.data(); }
  const float* data() const { return data_.data(); }
  float& at(std::int64_t r, std::int64_t c) { return data_[r * cols_ + c]; }
  float at(std::int64_t r, std::int64_t c) const { return data_[r * cols_ + c]; }
  float* row(std::int64_t r) { return data_.data() + r * cols_; }
  const float* row(std::int64_t r) const { return data_.data() + r * cols_; }

  MatrixView view() { return {data_.data(), rows_, cols_, cols_}; }
  ConstMatrixView view() const { return {data_.data(), rows_, cols_, cols_}; }
  void fill(float v) { std::fill(data_.begin(), data_.end(), v); }
  std::vector<float>& storage() { return data_; }
  const std::vector<float>& storage() const { return data_; }

 private:
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
  std::vector<float> data_;
};

}  // namespace strata
