// Where a HaloPlan meets a Communicator: the rows the plan lists are packed, exchanged and
// unpacked in a backend's memory, so on a GPU they move between devices through a device
// Communicator (NCCL, or MPI staged through pinned memory) without a host copy here.
// Rows are local (owned first, then halo), float32 here, and travel in the wire format of
// their direction (core/row_codec.h); backward contributions are added in peer order, so
// every run adds them alike. Halo rows that lie in one run per peer (LocalGraph numbers
// them by owner) and travel as float32 are received and sent where they lie, unpacked.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/core/timer.h"
#include "strata/kernels/backend.h"
#include "strata/partition/local_graph.h"

namespace strata {

// The packed rows of an exchange: the owned rows it sends forward (and whose contributions
// arrive backward), and the halo rows where they are not exchanged in place. Exchanges that
// never run at once (a stage's chunks and its whole block) share them; each grows to the
// largest of them.
struct HaloBuffers {
  kernels::Buffer owned, halo;
  bool busy = false;  // an exchange is between start and finish
};

class HaloExchange {
 public:
  // plan: over rows [0, owned + halo), data.size() peers; data is over the backend's memory.
  // buffers: shared with other exchanges (none: its own).
  HaloExchange(const HaloPlan& plan, Communicator& data, const kernels::Backend& backend,
               RowCodecs codecs = {}, std::shared_ptr<HaloBuffers> buffers = nullptr);

  // The key the next exchanges draw int8's rounding from: exchange t after this call uses
  // hash_key(key, t), so a run (and a resumed run) that calls it with the same key at the
  // start of each pass rounds alike.
  void begin_pass(std::uint64_t key) {
    key_ = key;
    exchanges_ = 0;
  }

  // Fills the halo rows of `rows` (owned first, then halo) with their owners' rows.
  void forward(MatrixView rows, CommCategory category) {
    start_forward(rows, category);
    finish();
  }
  // Sends the halo rows (gradient contributions to remote vertices) to their owners, who
  // add them, in peer order, into the matching owned rows.
  void backward(MatrixView rows, CommCategory category) {
    start_backward(rows, category);
    finish();
  }

  // The same in two halves, so that a rank computes while the rows travel: start packs
  // what it sends and posts every transfer; finish waits for them and writes (forward) or
  // adds (backward) what arrived into the rows start was given. In between, the owned rows
  // may change (they are packed), the halo rows must not be read (forward) or written
  // (backward: they may be sent in place); a rank calls progress() now and then, since MPI
  // moves data only inside its calls.
  // blocking: start also waits, for the same arithmetic with nothing in flight.
  void start_forward(MatrixView rows, CommCategory category, bool blocking = false) {
    start(rows, category, false, blocking);
  }
  void start_backward(MatrixView rows, CommCategory category, bool blocking = false) {
    start(rows, category, true, blocking);
  }
  void finish();
  bool pending() const { return pending_.has_value(); }
  void progress() { data_.progress(); }

 private:
  // One direction of the plan: rows listed peer by peer, in backend memory.
  struct Side {
    kernels::Buffer list;
    std::vector<std::int64_t> starts;  // peer q's rows are [starts[q], starts[q + 1])
    // Peer q's rows are first[q], first[q] + 1, ... (every peer's, where in_runs).
    std::vector<LocalId> first;
    bool in_runs = true;
  };
  // What finish needs of the exchange start posted (it fills recv_'s rows, or adds into
  // send_'s when add).
  struct Pending {
    MatrixView rows;
    bool add;
    bool in_place;  // halo_in_place
    RowCodec codec;
    CommCategory category;
    Timer posted;  // finish books the time until its wait as overlap, unless start waited
    bool waited;
  };
  static Side side_of(const std::vector<std::vector<LocalId>>& lists,
                      const kernels::Backend& backend);
  // Forward sends send_'s rows and fills recv_'s; backward (add) the other way round.
  void start(MatrixView rows, CommCategory category, bool add, bool blocking);
  // Where peer q's rows of a side travel from or to: the side's buffer, or the rows.
  std::span<std::byte> slice(const Side& side, int q, std::int64_t row_bytes) const;
  void post(bool add, std::int64_t row_bytes, CommCategory category);
  // Whether the halo rows of `rows` travel in place this exchange.
  bool halo_in_place(MatrixView rows, RowCodec codec) const {
    return recv_.in_runs && codec == RowCodec::kFloat32 && rows.stride == rows.cols;
  }
  RowCodec codec_of(bool add) const { return add ? codecs_.backward : codecs_.forward; }

  Communicator& data_;
  const kernels::Backend& backend_;
  Side send_, recv_;  // plan.send (owned rows) and plan.recv (halo rows)
  RowCodecs codecs_;
  std::uint64_t key_ = 0;
  std::uint64_t exchanges_ = 0;  // started since begin_pass
  std::shared_ptr<HaloBuffers> buffers_;
  std::vector<Request> requests_;  // the transfers of pending_ not yet waited for
  std::optional<Pending> pending_;
};

}  // namespace strata
