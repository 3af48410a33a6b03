// Where a HaloPlan meets a Communicator. Rows are local (owned first, then halo), float32.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/core/matrix.h"
#include "strata/partition/local_graph.h"

namespace strata {

class HaloExchange {
 public:
  HaloExchange(const LocalGraph& graph, Communicator& comm);
  // Any plan over rows [0, owned + halo); comm.size() peers. plan must outlive this.
  HaloExchange(const HaloPlan& plan, LocalId owned, LocalId halo, Communicator& comm);

  // Fills rows [owned, owned + halo) of `rows` with their owners' rows [0, owned).
  void forward(MatrixView rows, CommCategory category);
  // Sends rows [owned, owned + halo) (gradient contributions to remote vertices) to their
  // owners, who add them, in peer order, into the matching owned rows.
  void backward(MatrixView rows, CommCategory category);

  LocalId owned() const { return owned_; }
  LocalId halo() const { return halo_; }

 private:
  using Lists = std::vector<std::vector<LocalId>>;
  void exchange(const Lists& outgoing, const Lists& incoming, MatrixView rows,
                CommCategory category, bool add);
  static void counts(const Lists& lists, std::int64_t width, std::vector<std::int64_t>& out);

  const HaloPlan& plan_;
  Communicator& comm_;
  LocalId owned_;
  LocalId halo_;
  std::vector<std::int64_t> send_bytes_, recv_bytes_;
  std::vector<float> send_buffer_, recv_buffer_;
};

}  // namespace strata
