// The halo exchange of a stage whose rows are split into parts (graph mode, and hybrid
// mode with G > 1): before a layer aggregates a block, the halo rows of its chunk (every
// halo row for a whole block) arrive from their owners; after backward of a block
// scatters gradient into halo rows, those rows go back to their owners. Other chunks'
// halo rows keep their last values: the history, exactly as a part's own rows of chunks
// not yet computed.
#pragma once
#include <optional>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/kernels/backend.h"
#include "strata/layers/block_graph.h"
#include "strata/training/halo_exchange.h"
#include "strata/training/row_layout.h"

namespace strata {

class StageHalo {
 public:
  // group: this stage's ranks (rank = part), over the backend's memory. layout (with
  // parts > 1) must outlive this.
  StageHalo(const RowLayout& layout, Communicator& group, const kernels::Backend& backend,
            RowCodecs codecs = {});
  // Every exchange's HaloExchange::begin_pass, each with its own key drawn from `key`.
  void begin_pass(std::uint64_t key);

  // Counted as halo_fwd when training, else as eval.
  void forward(const Block& b, MatrixView rows, bool training);
  // Adds the halo rows of b's chunk into their owners' rows, and zeroes them here.
  void backward(const Block& b, MatrixView gradient);

  // A whole block's exchange in two halves (HaloExchange::start_forward and _backward),
  // for a rank that computes what needs no halo meanwhile; finish() ends it as forward()
  // or backward() would. blocking: the transfers end inside start, nothing overlaps.
  void start_forward(MatrixView rows, bool training, bool blocking);
  void start_backward(MatrixView gradient, bool blocking);
  void finish();
  bool pending() const { return whole_.pending(); }
  bool backward_pending() const { return whole_gradient_.has_value(); }
  void progress() { whole_.progress(); }

 private:
  HaloExchange& exchange_of(const Block& b);

  const kernels::Backend& backend_;
  LocalId owned_, halo_;
  std::shared_ptr<HaloBuffers> buffers_;  // every exchange's: one runs at a time
  std::vector<HaloExchange> chunks_;
  HaloExchange whole_;
  std::optional<MatrixView> whole_gradient_;      // a whole block's backward in flight
  std::vector<kernels::Buffer> chunk_halo_rows_;  // per chunk: its halo rows here
  std::vector<std::int64_t> chunk_halo_counts_;
  kernels::Buffer zeros_;  // scattered over the halo rows a backward pass has sent
};

}  // namespace strata
