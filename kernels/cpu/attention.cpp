// The CPU's attention kernels (attention.h): rows (or columns) in parallel, each output
// summed in entry order.
#include "strata/kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "dropout_keys.h"
#include "strata/core/error.h"
#include "strata/kernels/attention_keys.h"

namespace strata::kernels {
namespace {

// The keep scale of each entry's head, 1 / (1 - p) or 0 (attention_keys.h): an entry's
// key is hashed once, then one hash per head; nothing is hashed without dropout.
class EntryMask {
 public:
  explicit EntryMask(const AttentionDropout& d)
      : on_(d.p > 0.0f),
        base_(attention_base_key(d.seed, d.epoch, d.layer)),
        threshold_(drop_threshold(d.p)),
        keep_scale_(on_ ? 1.0f / (1.0f - d.p) : 1.0f) {
    STRATA_CHECK(d.p >= 0.0f && d.p < 1.0f, "attention dropout: p = ", d.p);
  }
  std::uint64_t row(GlobalId row) const { return on_ ? attention_row_key(base_, row) : 0; }
  std::uint64_t entry(std::uint64_t row_key, GlobalId column) const {
    return on_ ? attention_entry_key(row_key, column) : 0;
  }
  float scale(std::uint64_t entry_key, int head) const {
    if (!on_) return 1.0f;
    return attention_head_kept(entry_key, head, threshold_) ? keep_scale_ : 0.0f;
  }

 private:
  bool on_;
  std::uint64_t base_;
  std::uint32_t threshold_;
  float keep_scale_;
};

float leaky(float z, float slope) {
  return z > 0.0f ? z : slope * z;
}

void check_heads(int heads, ConstMatrixView h, ConstMatrixView out, const char* what) {
  STRATA_CHECK(heads > 0 && h.cols == out.cols && h.cols % heads == 0, what, ": ", heads,
               " heads over ", h.cols, " and ", out.cols, " columns");
}

}  // namespace

void attention_softmax(const EdgeBlock& g, int heads, ConstMatrixView s_dst, ConstMatrixView s_src,
                       float slope, float* alpha) {
  STRATA_CHECK(s_dst.rows == g.rows && s_dst.cols == heads && s_src.cols == heads,
               "attention_softmax: scores ", s_dst.rows, "x", s_dst.cols, " and ", s_src.cols,
               " columns for ", g.rows, " rows of ", heads, " heads");
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t r = 0; r < g.rows; ++r) {
    const EdgeOffset begin = g.offsets[r], end = g.offsets[r + 1];
    for (int k = 0; k < heads; ++k) {
      float top = -INFINITY;
      for (EdgeOffset e = begin; e < end; ++e) {
        const float v = leaky(s_dst.row(r)[k] + s_src.row(g.columns[e])[k], slope);
        alpha[e * heads + k] = v;
        top = std::max(top, v);
      }
      float sum = 0.0f;
      for (EdgeOffset e = begin; e < end; ++e) {
        const float v = std::exp(alpha[e * heads + k] - top);
        alpha[e * heads + k] = v;
        sum += v;
      }
      const float inverse = 1.0f / sum;
      for (EdgeOffset e = begin; e < end; ++e) alpha[e * heads + k] *= inverse;
    }
  }
}

void attention_aggregate(const EdgeBlock& g, int heads, const float* alpha,
                         const AttentionDropout& dropout, ConstMatrixView h, MatrixView out) {
  check_heads(heads, h, out, "attention_aggregate");
  STRATA_CHECK(out.rows == g.rows, "attention_aggregate: ", out.rows, " rows for ", g.rows);
  const EntryMask mask(dropout);
  const std::int64_t width = h.cols / heads;
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t r = 0; r < g.rows; ++r) {
    float* dst = out.row(r);
    std::fill(dst, dst + out.cols, 0.0f);
    const std::uint64_t row_key = mask.row(g.row_ids[r]);
    for (EdgeOffset e = g.offsets[r]; e < g.offsets[r + 1]; ++e) {
      const LocalId c = g.columns[e];
      const float* src = h.row(c);
      const std::uint64_t key = mask.entry(row_key, g.column_ids[c]);
      for (int k = 0; k < heads; ++k) {
        const float w = alpha[e * heads + k] * mask.scale(key, k);
        for (std::int64_t f = k * width; f < (k + 1) * width; ++f) dst[f] += w * src[f];
      }
    }
  }
}

// Per row: d alpha_e = drop'(<grad_out[r], h[c]>) per head, then the softmax's backward
// d e_e = alpha_e (d alpha_e - Σ alpha d alpha) and LeakyReLU's; each head's sums over the
// row's entries in entry order.
void attention_backward(const EdgeBlock& g, int heads, const float* alpha,
                        const AttentionDropout& dropout, ConstMatrixView s_dst,
                        ConstMatrixView s_src, float slope, ConstMatrixView grad_out,
                        ConstMatrixView h, float* grad_z, MatrixView grad_s_dst) {
  check_heads(heads, h, grad_out, "attention_backward");
  STRATA_CHECK(grad_out.rows == g.rows && grad_s_dst.rows == g.rows && grad_s_dst.cols == heads,
               "attention_backward: ", grad_out.rows, " and ", grad_s_dst.rows, " rows for ",
               g.rows);
  const EntryMask mask(dropout);
  const std::int64_t width = h.cols / heads;
#pragma omp parallel
  {
    std::vector<float> weighted(static_cast<std::size_t>(heads));
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t r = 0; r < g.rows; ++r) {
      const EdgeOffset begin = g.offsets[r], end = g.offsets[r + 1];
      const float* dy = grad_out.row(r);
      const std::uint64_t row_key = mask.row(g.row_ids[r]);
      std::fill(weighted.begin(), weighted.end(), 0.0f);
      for (EdgeOffset e = begin; e < end; ++e) {
        const LocalId c = g.columns[e];
        const float* src = h.row(c);
        const std::uint64_t key = mask.entry(row_key, g.column_ids[c]);
        for (int k = 0; k < heads; ++k) {
          float dot = 0.0f;
          for (std::int64_t f = k * width; f < (k + 1) * width; ++f) dot += dy[f] * src[f];
          const float d = dot * mask.scale(key, k);
          grad_z[e * heads + k] = d;
          weighted[k] += alpha[e * heads + k] * d;
        }
      }
      float* sums = grad_s_dst.row(r);
      std::fill(sums, sums + heads, 0.0f);
      for (EdgeOffset e = begin; e < end; ++e)
        for (int k = 0; k < heads; ++k) {
          const float z = s_dst.row(r)[k] + s_src.row(g.columns[e])[k];
          const float de = alpha[e * heads + k] * (grad_z[e * heads + k] - weighted[k]);
          const float dz = z > 0.0f ? de : slope * de;
          grad_z[e * heads + k] = dz;
          sums[k] += dz;
        }
    }
  }
}

void attention_scatter(const EdgeBlock& g, int heads, const float* alpha,
                       const AttentionDropout& dropout, ConstMatrixView grad_out,
                       const float* grad_z, MatrixView grad_h, MatrixView grad_s_src) {
  check_heads(heads, grad_out, grad_h, "attention_scatter");
  STRATA_CHECK(grad_s_src.cols == heads && grad_s_src.rows == grad_h.rows,
               "attention_scatter: score gradient ", grad_s_src.rows, "x", grad_s_src.cols);
  const EntryMask mask(dropout);
  const std::int64_t width = grad_h.cols / heads;
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t t = 0; t < g.touched; ++t) {
    const LocalId c = g.touched_columns[t];
    float* dh = grad_h.row(c);
    float* ds = grad_s_src.row(c);
    for (EdgeOffset i = g.touched_offsets[t]; i < g.touched_offsets[t + 1]; ++i) {
      const EdgeOffset e = g.by_column[i];
      const LocalId r = g.by_column_rows[i];
      const float* dy = grad_out.row(r);
      const std::uint64_t key = mask.entry(mask.row(g.row_ids[r]), g.column_ids[c]);
      for (int k = 0; k < heads; ++k) {
        const float w = alpha[e * heads + k] * mask.scale(key, k);
        for (std::int64_t f = k * width; f < (k + 1) * width; ++f) dh[f] += w * dy[f];
        ds[k] += grad_z[e * heads + k];
      }
    }
  }
}

void elu_forward(ConstMatrixView in, MatrixView out) {
  STRATA_CHECK(in.rows == out.rows && in.cols == out.cols, "elu_forward: shapes differ");
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < in.rows; ++r)
    for (std::int64_t c = 0; c < in.cols; ++c) {
      const float x = in.row(r)[c];
      out.row(r)[c] = x > 0.0f ? x : std::expm1(x);
    }
}

void elu_backward(ConstMatrixView out, ConstMatrixView grad_out, MatrixView grad_in) {
  STRATA_CHECK(out.rows == grad_out.rows && out.cols == grad_out.cols && grad_in.rows == out.rows &&
                   grad_in.cols == out.cols,
               "elu_backward: shapes differ");
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < out.rows; ++r)
    for (std::int64_t c = 0; c < out.cols; ++c) {
      const float y = out.row(r)[c];
      grad_in.row(r)[c] = grad_out.row(r)[c] * (y > 0.0f ? 1.0f : y + 1.0f);
    }
}

}  // namespace strata::kernels
