// Id types: local ids (a rank's own numbering) and global ids are different types.
#pragma once
#include <cstdint>

namespace strata {

using LocalId = std::int32_t;   // row/column index inside one rank's graph
using GlobalId = std::int64_t;  // vertex id in the whole graph
using EdgeOffset = std::int64_t;

enum class DType { kFloat32, kFloat64, kInt32, kInt64, kUInt8 };

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::kFloat32: return 4;
    case DType::kFloat64: return 8;
    case DType::kInt32: return 4;
    case DType::kInt64: return 8;
    case DType::kUInt8: return 1;
  }
  return 0;
}

}  // namespace strata
