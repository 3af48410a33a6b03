// Communicator: a few collectives and point-to-point calls over byte spans plus a dtype.
// One implementation per file (MPI, in-process). The public calls validate arguments,
// count bytes (counters.h) and time the wait; implementations only move the bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "strata/comm/counters.h"
#include "strata/core/types.h"

namespace strata {

// What an implementation keeps for one pending isend/irecv.
class RequestState {
 public:
  virtual ~RequestState() = default;
};

// Handle to a pending isend/irecv. It must be waited on (by the communicator that made
// it) before its buffer goes away; a default-constructed or waited Request is inactive.
class Request {
 public:
  Request() = default;
  Request(std::unique_ptr<RequestState> state, CommCategory category)
      : state_(std::move(state)), category_(category) {}
  bool active() const { return state_ != nullptr; }

 private:
  friend class Communicator;
  std::unique_ptr<RequestState> state_;
  CommCategory category_ = CommCategory::kControl;
};

class Communicator {
 public:
  virtual ~Communicator() = default;
  Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  virtual int rank() const = 0;
  virtual int size() const = 0;

  // In place, elementwise sum over ranks; data.size() must be a multiple of dtype_size.
  // kUInt8 sums wrap modulo 256; other integer sums must not overflow.
  void all_reduce_sum(std::span<std::byte> data, DType dtype, CommCategory category);
  // send holds one contiguous block per peer in rank order, sized by send_counts_bytes;
  // recv likewise by recv_counts_bytes. Counts must agree pairwise between ranks.
  void all_to_all_v(std::span<const std::byte> send,
                    std::span<const std::int64_t> send_counts_bytes, std::span<std::byte> recv,
                    std::span<const std::int64_t> recv_counts_bytes, CommCategory category);
  // all.size() == mine.size() * size(); rank p's bytes land at offset p * mine.size().
  void all_gather(std::span<const std::byte> mine, std::span<std::byte> all, CommCategory category);
  void broadcast(std::span<std::byte> data, int root, CommCategory category);
  void barrier();

  // Messages between one (sender, receiver, tag) are received in the order sent. A recv
  // buffer must have exactly the size of the message it matches.
  Request isend(int peer, int tag, std::span<const std::byte> data, CommCategory category);
  // category only books the wait time; received bytes are counted by their sender.
  Request irecv(int peer, int tag, std::span<std::byte> data,
                CommCategory category = CommCategory::kControl);
  void wait(Request& request);
  void wait_all(std::span<Request> requests);
  // Starts the sends and receives posted so far that this communicator holds back until a
  // wait (NCCL launches them in groups there); elsewhere every post starts at once and
  // this does nothing. A pipeline stage flushes each chunk it sends, so that the next
  // stage can start on it while this one works on the next chunk.
  void flush() { do_flush(); }
  // Lets transfers posted earlier move on while the caller computes: MPI moves data only
  // inside its calls, so a rank with sends and receives in flight calls this now and then.
  // Elsewhere transfers move by themselves and this does nothing.
  void progress() { do_progress(); }
  void send(int peer, int tag, std::span<const std::byte> data, CommCategory category);
  void recv(int peer, int tag, std::span<std::byte> data,
            CommCategory category = CommCategory::kControl);

  // Collective. Ranks with equal color form a sub-communicator, ordered by (key, rank).
  // color must be >= 0. The child has its own counters, starting at zero.
  std::unique_ptr<Communicator> split(int color, int key);

  // Ends the whole job: MPI_Abort for MPI; in-process, every waiting thread throws.
  [[noreturn]] virtual void abort(const std::string& message) = 0;

  ByteCounters& counters() { return counters_; }
  const ByteCounters& counters() const { return counters_; }

 protected:
  virtual void do_all_reduce_sum(std::span<std::byte> data, DType dtype) = 0;
  virtual void do_all_to_all_v(std::span<const std::byte> send,
                               std::span<const std::int64_t> send_counts, std::span<std::byte> recv,
                               std::span<const std::int64_t> recv_counts) = 0;
  virtual void do_all_gather(std::span<const std::byte> mine, std::span<std::byte> all) = 0;
  virtual void do_broadcast(std::span<std::byte> data, int root) = 0;
  virtual void do_barrier() = 0;
  virtual std::unique_ptr<RequestState> do_isend(int peer, int tag,
                                                 std::span<const std::byte> data) = 0;
  virtual std::unique_ptr<RequestState> do_irecv(int peer, int tag, std::span<std::byte> data) = 0;
  virtual void do_wait(RequestState& state) = 0;
  virtual void do_flush() {}
  virtual void do_progress() {}
  virtual std::unique_ptr<Communicator> do_split(int color, int key) = 0;

 private:
  void require_peer(int peer, const char* operation) const;
  ByteCounters counters_;
};

}  // namespace strata
