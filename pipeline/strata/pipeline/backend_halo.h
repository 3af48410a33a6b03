// Graph-mode aggregation on a kernels::Backend (HaloAggregator's twin): the halo rows are
// packed, exchanged and unpacked in the backend's memory, so on a GPU they move between
// devices through a device Communicator (NCCL, or MPI staged through pinned memory)
// without a host copy in the trainer. Exchanges the same rows in the same order as
// HaloExchange, and adds backward contributions in peer order as it does.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/kernels/backend.h"
#include "strata/layers/aggregator.h"
#include "strata/partition/local_graph.h"

namespace strata {

class BackendHaloAggregator : public Aggregator {
 public:
  // data: a communicator over the backend's memory, rank graph.part of the parts.
  BackendHaloAggregator(const LocalGraph& graph, Communicator& data,
                        const kernels::Backend& backend);

  LocalId owned_rows() const override { return owned_; }
  void forward(ConstMatrixView in_owned, MatrixView out_owned, int layer) override;
  void backward(ConstMatrixView grad_out_owned, MatrixView grad_in_owned, int layer) override;
  // Evaluation passes count their halo traffic as kEval.
  void set_evaluation(bool evaluation) { evaluation_ = evaluation; }

 private:
  // One direction of the plan: rows listed peer by peer, in backend memory.
  struct Side {
    kernels::Buffer list;
    std::vector<std::int64_t> starts;  // peer q's rows are [starts[q], starts[q + 1])
  };
  static Side side_of(const std::vector<std::vector<LocalId>>& lists,
                      const kernels::Backend& backend);
  void exchange(Side& out, Side& in, MatrixView rows, CommCategory category, bool add);

  Communicator& data_;
  const kernels::Backend& backend_;
  LocalId owned_, halo_;
  std::unique_ptr<kernels::SparseMatrix> a_hat_, a_hat_transposed_;
  Side send_, recv_;  // plan.send (owned rows) and plan.recv (halo rows)
  kernels::Tensor extended_;
  kernels::Buffer send_buffer_, recv_buffer_;
  std::vector<std::int64_t> send_bytes_, recv_bytes_;
  bool evaluation_ = false;
};

}  // namespace strata
