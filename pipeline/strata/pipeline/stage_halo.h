// The halo exchange of a hybrid-mode stage: the G ranks of one stage are graph-parallel
// over G parts. Before a layer aggregates chunk c, the rows of chunk c that other parts
// read are exchanged; after backward of chunk c scatters gradient into halo rows, those
// rows go back to their owners. The other chunks' halo rows keep their last values: the
// history, exactly as a part's own rows of chunks not yet computed.
#pragma once
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/core/matrix.h"
#include "strata/pipeline/chunk_layout.h"
#include "strata/pipeline/halo_exchange.h"
#include "strata/pipeline/hybrid_layout.h"

namespace strata {

class StageHalo {
 public:
  // group: this stage's ranks, rank = part. layout must outlive this.
  StageHalo(const HybridLayout& layout, Communicator& group);

  // Fills the halo rows of b's chunk (every halo row for a whole block) from their owners;
  // counted as halo_fwd when training, else as eval.
  void forward(const ChunkBlock& b, Matrix& rows, bool training);
  // Adds the halo rows of b's chunk into their owners' rows, and zeroes them here.
  void backward(const ChunkBlock& b, Matrix& gradient);

 private:
  HaloExchange& exchange_of(const ChunkBlock& b);

  LocalId owned_, halo_;
  std::vector<HaloExchange> chunks_;
  HaloExchange whole_;
  std::vector<std::vector<LocalId>> chunk_halo_rows_;  // per chunk: its halo rows here
};

}  // namespace strata
