// Row-block helpers the pipeline stages share: views of a block's rows in a full-size
// buffer, per-chunk scratch, and the transposed scatter of a block's gradient.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/matrix.h"
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

// g[touched] += Â[block, touched]ᵀ · grad_z, through the block's transposed rows. Rows of
// blocks whose backward already ran receive gradient along history edges (StaleGrad).
void scatter_gradient(const ChunkBlock& b, ConstMatrixView grad_z, Matrix& g,
                      std::vector<float>& scratch_buffer);

// d loss / d input rows of block b are complete once b's own backward has scattered (the
// blocks that read them fresh ran backward before it): out = g[b], and g[b] restarts at 0.
void take_gradient(Matrix& g, const ChunkBlock& b, MatrixView out);

}  // namespace strata::stage
