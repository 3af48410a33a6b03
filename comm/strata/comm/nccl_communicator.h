// NCCL implementation of Communicator, for workers that keep their tensors on a GPU.
// Every span handed to it is device memory on the device of the Context it was made
// with; the bytes never pass through the host. Byte counters and wait times are booked by
// the Communicator front end exactly as for MPI.
//
// NCCL work runs on a communication stream of the communicator's own that first waits for
// the Context's stream: a flushed send that waits for its peer's receive holds back no
// kernel, so the caller computes while it is in flight. A buffer handed to isend or irecv
// must not be touched by the caller's kernels until the request has been waited on.
//
// Point-to-point: isend/irecv are queued and launched together, as one NCCL group, by the
// first wait or flush() after them (a batch), so every transfer a rank posts before waiting
// proceeds at once (NCCL has no buffering: a send completes only when its receiver's matching recv
// runs). NCCL has no tags and matches the messages between two ranks in launch order, so
// a batch is launched sorted by (peer, tag, order posted): within a batch, messages match
// by tag as with MPI. Across batches they match in order, so both ranks must put a
// message's send and its receive in batches of the same rank: post every transfer of an
// exchange, in both directions, before waiting on any, as the engine's exchanges do.
//
// The communicator is non-blocking; its state machine (nccl_sequencer.h) settles every
// call before the next and never hangs: an NCCL error or a wait longer than the timeout
// (STRATA_NCCL_TIMEOUT_S, default 600 s) aborts the NCCL communicator and throws
// strata::Error naming the rank and the operation.
#pragma once
#include <memory>
#include <string>

#include "strata/comm/communicator.h"
#include "strata/core/device.h"

namespace strata {

class NcclCommunicator : public Communicator {
 public:
  // Collective over `bootstrap`: rank 0 makes the NCCL unique id and broadcasts it over
  // bootstrap (host memory), then every rank joins with bootstrap's rank and size.
  // `context` and `bootstrap` must outlive this communicator; abort() goes through
  // bootstrap, so a failing rank ends the whole job. Throws "built without CUDA" in a
  // build without CUDA or NCCL.
  NcclCommunicator(Communicator& bootstrap, const gpu::Context& context);
  ~NcclCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // Aborts the NCCL communicator (pending operations end), then bootstrap.abort(message).
  [[noreturn]] void abort(const std::string& message) override;

  // Whether this build has NCCL (false: the constructor throws).
  static bool built_with_nccl();

 protected:
  void do_all_reduce_sum(std::span<std::byte> data, DType dtype) override;
  void do_all_to_all_v(std::span<const std::byte> send, std::span<const std::int64_t> send_counts,
                       std::span<std::byte> recv,
                       std::span<const std::int64_t> recv_counts) override;
  void do_all_gather(std::span<const std::byte> mine, std::span<std::byte> all) override;
  void do_broadcast(std::span<std::byte> data, int root) override;
  void do_barrier() override;
  std::unique_ptr<RequestState> do_isend(int peer, int tag,
                                         std::span<const std::byte> data) override;
  std::unique_ptr<RequestState> do_irecv(int peer, int tag, std::span<std::byte> data) override;
  void do_wait(RequestState& state) override;
  void do_flush() override;
  std::unique_ptr<Communicator> do_split(int color, int key) override;

 private:
  // The ncclComm_t, its communication stream and its state machine, behind a pointer so
  // that this header needs neither NCCL nor CUDA.
  struct Handle;
  NcclCommunicator(Communicator& bootstrap, const gpu::Context& context,
                   std::unique_ptr<Handle> handle);

  Communicator& bootstrap_;
  const gpu::Context& context_;
  std::unique_ptr<Handle> handle_;
  gpu::DeviceBuffer barrier_word_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace strata
