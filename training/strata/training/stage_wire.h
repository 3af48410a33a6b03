// Stage rows in their wire format (core/row_codec.h) between pipeline stages: a chunk's
// rows are encoded into a buffer that lives until the pass waits for its sends, and a
// received message is decoded into the stage's rows. float32 rows travel as they are,
// with no copy, exactly as before there were formats.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "strata/kernels/backend.h"

namespace strata {

class StageWire {
 public:
  // backend must outlive the wire.
  StageWire(const kernels::Backend& backend, RowCodecs codecs);

  // int8's rounding: message t after this call draws from hash_key(key, t). Also frees the
  // send buffers for reuse: every send of the last pass must have been waited for.
  void begin_pass(std::uint64_t key);
  // The bytes that carry `rows` (contiguous): the rows themselves, or their encoding in a
  // buffer kept until the next begin_pass.
  std::span<const std::byte> outgoing(ConstMatrixView rows, bool backward);
  // Where a message carrying `rows` lands; arrived() then decodes it into rows.
  std::span<std::byte> incoming(MatrixView rows, bool backward);
  void arrived(MatrixView rows, bool backward);

 private:
  RowCodec codec_of(bool backward) const { return backward ? codecs_.backward : codecs_.forward; }
  kernels::Buffer& grown(kernels::Buffer& b, std::size_t bytes);

  const kernels::Backend& backend_;
  RowCodecs codecs_;
  std::uint64_t key_ = 0;
  std::uint64_t messages_ = 0;
  std::vector<kernels::Buffer> sends_;  // the first used_ hold messages of this pass
  std::size_t used_ = 0;
  kernels::Buffer received_;
};

}  // namespace strata
