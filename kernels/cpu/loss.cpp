// Masked softmax cross-entropy and accuracy counting.
#include <algorithm>
#include <cmath>

#include "strata/kernels/kernels.h"

namespace strata::kernels {
namespace {

void check_row_spans(ConstMatrixView logits, std::size_t labels, std::size_t mask) {
  STRATA_CHECK(static_cast<std::int64_t>(labels) >= logits.rows &&
                   static_cast<std::int64_t>(mask) >= logits.rows,
               "loss: ", logits.rows, " rows but ", labels, " labels and ", mask, " mask entries");
}

// Writes (softmax - onehot) · inv_norm into grad and returns the row's nll (in double).
double row_loss(const float* z, std::int64_t classes, std::int32_t label, double inv_norm,
                float* grad) {
  STRATA_CHECK(label >= 0 && label < classes, "loss: label ", label, " outside [0, ", classes, ")");
  const float max = *std::max_element(z, z + classes);
  double denom = 0.0;
  for (std::int64_t c = 0; c < classes; ++c) denom += std::exp(static_cast<double>(z[c] - max));
  const double log_denom = std::log(denom);
  for (std::int64_t c = 0; c < classes; ++c) {
    const double prob = std::exp(static_cast<double>(z[c] - max) - log_denom);
    const double onehot = c == label ? 1.0 : 0.0;
    grad[c] = static_cast<float>((prob - onehot) * inv_norm);
  }
  return log_denom - static_cast<double>(z[label] - max);
}

}  // namespace

double masked_log_softmax_nll(ConstMatrixView logits, std::span<const std::int32_t> labels,
                              std::span<const std::uint8_t> mask, double normalizer,
                              MatrixView grad) {
  check_row_spans(logits, labels.size(), mask.size());
  STRATA_CHECK(grad.rows == logits.rows && grad.cols == logits.cols, "loss: grad shape");
  STRATA_CHECK(normalizer > 0.0, "loss: normalizer ", normalizer);
  const double inv_norm = 1.0 / normalizer;
  double total = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : total)
  for (std::int64_t r = 0; r < logits.rows; ++r) {
    float* g = grad.row(r);
    if (mask[r]) {
      total += row_loss(logits.row(r), logits.cols, labels[r], inv_norm, g);
    } else {
      std::fill(g, g + grad.cols, 0.0f);
    }
  }
  return total * inv_norm;
}

std::int64_t argmax_correct(ConstMatrixView logits, std::span<const std::int32_t> labels,
                            std::span<const std::uint8_t> mask) {
  check_row_spans(logits, labels.size(), mask.size());
  std::int64_t correct = 0;
  for (std::int64_t r = 0; r < logits.rows; ++r) {
    if (!mask[r] || logits.cols == 0) continue;
    const float* z = logits.row(r);
    const auto best = std::max_element(z, z + logits.cols) - z;
    correct += best == labels[r] ? 1 : 0;
  }
  return correct;
}

}  // namespace strata::kernels
