// Row-block helpers the pipeline stages share: views of a block's rows in a full-size
// buffer, per-chunk scratch, and the transposed scatter of a block's gradient.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "strata/core/matrix.h"
#include "strata/datasets/feature_matrix.h"
#include "strata/kernels/sparse_features.h"
#include "strata/pipeline/chunk_layout.h"

namespace strata::stage {

inline MatrixView rows(Matrix& m, const ChunkBlock& b) {
  return m.view().rows_range(b.begin, b.end);
}
inline ConstMatrixView rows(const Matrix& m, const ChunkBlock& b) {
  return m.view().rows_range(b.begin, b.end);
}
// Columns [begin, end) of a view (the two halves of a GCNII boundary row).
inline MatrixView columns(MatrixView m, std::int64_t begin, std::int64_t end) {
  return {m.data + begin, m.rows, end - begin, m.stride};
}
inline ConstMatrixView columns(ConstMatrixView m, std::int64_t begin, std::int64_t end) {
  return {m.data + begin, m.rows, end - begin, m.stride};
}

// A rows x cols view over buffer, which only ever grows: chunks differ in size, and the
// per-chunk scratch must not be reallocated on every chunk and layer.
inline MatrixView scratch(std::vector<float>& buffer, std::int64_t r, std::int64_t c) {
  const auto size = static_cast<std::size_t>(r * c);
  if (buffer.size() < size) buffer.resize(size);
  return {buffer.data(), r, c, c};
}

inline void ensure_shape(Matrix& m, std::int64_t r, std::int64_t c) {
  if (m.rows() != r || m.cols() != c) m = Matrix(r, c);
}

// The global ids of block b's rows (they key the dropout masks).
inline std::span<const GlobalId> block_ids(const ChunkLayout& layout, const ChunkBlock& b) {
  return std::span(layout.order).subspan(b.begin, b.end - b.begin);
}

// Input dropout (mask layer 0) over every row of the first stage's features: in sparse's
// values when the features are sparse, else into `dropped`. p = 0 restores the raw values.
void drop_features(const FeatureMatrix& features, std::optional<SparseFeatures>& sparse,
                   Matrix& dropped, std::span<const GlobalId> ids, float p, std::uint64_t seed,
                   std::int64_t epoch);

// g[touched] += Â[block, touched]ᵀ · grad_z, through the block's transposed rows. Rows of
// blocks whose backward already ran receive gradient along history edges (StaleGrad).
void scatter_gradient(const ChunkBlock& b, ConstMatrixView grad_z, Matrix& g,
                      std::vector<float>& scratch_buffer);

// d loss / d input rows of block b are complete once b's own backward has scattered (the
// blocks that read them fresh ran backward before it): out = g[b], and g[b] restarts at 0.
void take_gradient(Matrix& g, const ChunkBlock& b, MatrixView out);

}  // namespace strata::stage
