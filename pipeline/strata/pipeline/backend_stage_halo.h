// StageHalo's twin on a kernels::Backend: the halo exchange inside one hybrid-mode stage,
// per chunk, with the rows in the backend's memory (BackendHaloExchange per chunk plan).
#pragma once
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/kernels/backend.h"
#include "strata/pipeline/backend_halo_exchange.h"
#include "strata/pipeline/chunk_layout.h"
#include "strata/pipeline/hybrid_layout.h"

namespace strata {

class BackendStageHalo {
 public:
  // group: this stage's ranks (rank = part), over the backend's memory.
  BackendStageHalo(const HybridLayout& layout, Communicator& group,
                   const kernels::Backend& backend);

  // Fills the halo rows of b's chunk (every halo row for a whole block) from their owners;
  // counted as halo_fwd when training, else as eval.
  void forward(const ChunkBlock& b, kernels::Tensor& rows, bool training);
  // Adds the halo rows of b's chunk into their owners' rows, and zeroes them here.
  void backward(const ChunkBlock& b, kernels::Tensor& gradient);

 private:
  BackendHaloExchange& exchange_of(const ChunkBlock& b);

  const kernels::Backend& backend_;
  LocalId owned_, halo_;
  std::vector<BackendHaloExchange> chunks_;
  BackendHaloExchange whole_;
  std::vector<kernels::Buffer> chunk_halo_rows_;  // per chunk: its halo rows here
  std::vector<std::int64_t> chunk_halo_counts_;
  kernels::Buffer zeros_;  // scattered over the halo rows a backward pass has sent
};

}  // namespace strata
