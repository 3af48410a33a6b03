// Where a HaloPlan meets a Communicator: the rows the plan lists are packed, exchanged and
// unpacked in a backend's memory, so on a GPU they move between devices through a device
// Communicator (NCCL, or MPI staged through pinned memory) without a host copy here.
// Rows are local (owned first, then halo), float32; backward contributions are added in
// peer order, so every run adds them alike.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/kernels/backend.h"
#include "strata/partition/local_graph.h"

namespace strata {

class HaloExchange {
 public:
  // plan: over rows [0, owned + halo), data.size() peers; data is over the backend's memory.
  HaloExchange(const HaloPlan& plan, Communicator& data, const kernels::Backend& backend);

  // Fills the halo rows of `rows` (owned first, then halo) with their owners' rows.
  void forward(MatrixView rows, CommCategory category) {
    exchange(send_, recv_, rows, category, false);
  }
  // Sends the halo rows (gradient contributions to remote vertices) to their owners, who
  // add them, in peer order, into the matching owned rows.
  void backward(MatrixView rows, CommCategory category) {
    exchange(recv_, send_, rows, category, true);
  }

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
  Side send_, recv_;  // plan.send (owned rows) and plan.recv (halo rows)
  kernels::Buffer send_buffer_, recv_buffer_;
  std::vector<std::int64_t> send_bytes_, recv_bytes_;
};

}  // namespace strata
