#include "strata/training/stage_wire.h"

#include "strata/core/error.h"
#include "strata/core/random.h"

namespace strata {
namespace {

std::int64_t message_bytes(ConstMatrixView rows, RowCodec codec) {
  STRATA_CHECK(rows.stride == rows.cols, "stage transfer of a strided block");
  return rows.rows * row_codec_bytes(codec, rows.cols);
}

}  // namespace

StageWire::StageWire(const kernels::Backend& backend, RowCodecs codecs)
    : backend_(backend), codecs_(codecs) {}

void StageWire::begin_pass(std::uint64_t key) {
  key_ = key;
  messages_ = 0;
  used_ = 0;
}

kernels::Buffer& StageWire::grown(kernels::Buffer& b, std::size_t bytes) {
  if (b.bytes() < bytes) b = kernels::Buffer(backend_, bytes);
  return b;
}

std::span<const std::byte> StageWire::outgoing(ConstMatrixView rows, bool backward) {
  const RowCodec codec = codec_of(backward);
  const auto bytes = static_cast<std::size_t>(message_bytes(rows, codec));
  if (codec == RowCodec::kFloat32) return {reinterpret_cast<const std::byte*>(rows.data), bytes};
  if (used_ == sends_.size()) sends_.emplace_back();
  kernels::Buffer& b = grown(sends_[used_++], bytes);
  backend_.encode_rows(rows, nullptr, rows.rows, codec, hash_key(key_, messages_++), b.data());
  return {static_cast<const std::byte*>(b.data()), bytes};
}

std::span<std::byte> StageWire::incoming(MatrixView rows, bool backward) {
  const RowCodec codec = codec_of(backward);
  const auto bytes = static_cast<std::size_t>(message_bytes(rows, codec));
  if (codec == RowCodec::kFloat32) return {reinterpret_cast<std::byte*>(rows.data), bytes};
  return {static_cast<std::byte*>(grown(received_, bytes).data()), bytes};
}

void StageWire::arrived(MatrixView rows, bool backward) {
  const RowCodec codec = codec_of(backward);
  if (codec != RowCodec::kFloat32)
    backend_.decode_rows(received_.data(), codec, nullptr, rows.rows, rows, false);
}

}  // namespace strata
