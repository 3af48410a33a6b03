// How rows of activations or their gradients travel between ranks (halo rows, pipeline
// stage rows): as float32, as bfloat16, or as 8-bit integers with a per-row range. The
// byte counts here are the wire format's exact sizes: the counters count them and the
// communication model predicts them.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace strata {

// kInt8 row: a 4-byte header (the row's lowest value, rounded down, and its step, rounded
// up, both bfloat16) then one byte per column, padded to 4 bytes so every row starts
// aligned. A value decodes as low + q · step, q in [0, 255], rounded stochastically so the
// decoded value is unbiased.
enum class RowCodec : std::uint8_t { kFloat32, kBf16, kInt8 };

// One direction's format each way: forward rows (activations, also the evaluation pass)
// and backward rows (their gradients).
struct RowCodecs {
  RowCodec forward = RowCodec::kFloat32;
  RowCodec backward = RowCodec::kFloat32;
};

constexpr bool operator==(RowCodecs a, RowCodecs b) {
  return a.forward == b.forward && a.backward == b.backward;
}

// "none" | "bf16" | "int8".
const char* row_codec_name(RowCodec codec);
std::optional<RowCodec> parse_row_codec(std::string_view name);

constexpr std::int64_t row_codec_bytes(RowCodec codec, std::int64_t cols) {
  switch (codec) {
    case RowCodec::kFloat32:
      return 4 * cols;
    case RowCodec::kBf16:
      return 2 * cols;
    case RowCodec::kInt8:
      return 4 + (cols + 3) / 4 * 4;
  }
  return 0;
}

}  // namespace strata
