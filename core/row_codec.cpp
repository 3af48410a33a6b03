#include "strata/core/row_codec.h"

namespace strata {

const char* row_codec_name(RowCodec codec) {
  switch (codec) {
    case RowCodec::kFloat32:
      return "none";
    case RowCodec::kBf16:
      return "bf16";
    case RowCodec::kInt8:
      return "int8";
  }
  return "?";
}

std::optional<RowCodec> parse_row_codec(std::string_view name) {
  for (const RowCodec c : {RowCodec::kFloat32, RowCodec::kBf16, RowCodec::kInt8})
    if (name == row_codec_name(c)) return c;
  return std::nullopt;
}

}  // namespace strata
