// The state machine of a non-blocking NCCL communicator, apart from NCCL itself so that a
// fake NCCL can drive it in tests without a GPU (tests/comm/test_nccl_sequencer.cpp).
//
// A non-blocking communicator answers ncclInProgress while it is still taking a call
// (ncclGroupEnd, a collective, init or split) and refuses any further call until
// ncclCommGetAsyncError has left ncclInProgress. The sequencer therefore settles (polls
// until ready) after every launch, before returning to its caller. Transfers are launched
// on a communication stream of their own that first waits for the compute stream's work
// so far: a send that sits there until its peer posts the matching receive holds back no
// kernel of the compute stream, so the caller computes while the transfer is in flight.
//
// No call hangs: every poll ends at the timeout, and an NCCL error or a timeout aborts the
// communicator (what is still queued ends) and throws strata::Error naming the rank and
// the operation. After that every call throws.
#pragma once
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace strata {

// The NCCL and CUDA calls of one communicator that the sequencer makes: nccl_communicator.cpp
// implements them over an ncclComm_t and its streams. Failing calls throw strata::Error.
class NcclCalls {
 public:
  enum class State { kReady, kInProgress, kFailed };
  virtual ~NcclCalls() = default;
  // ncclCommGetAsyncError; on kFailed, `error` says what failed.
  virtual State state(std::string& error) = 0;
  // The communication stream waits for the work queued so far on the compute stream.
  virtual void follow_compute() = 0;
  virtual void group_start() = 0;
  virtual void group_end() = 0;
  virtual void send(const void* data, std::size_t bytes, int peer) = 0;
  virtual void recv(void* data, std::size_t bytes, int peer) = 0;
  // Whether the work queued on the communication stream is done (cudaStreamQuery).
  virtual bool stream_idle() = 0;
  // ncclCommFinalize: completes what is queued, then the communicator can be destroyed.
  virtual void finalize() = 0;
  // ncclCommAbort: ends whatever is queued; never throws.
  virtual void abort() noexcept = 0;
};

class NcclSequencer {
 public:
  struct Transfer {
    bool send;
    int peer;
    int tag;
    void* data;  // a send's is never written
    std::size_t bytes;
  };

  NcclSequencer(NcclCalls& calls, int rank, std::chrono::milliseconds timeout);

  // Queued until the next flush or wait: one group per batch, sorted by (peer, tag, order
  // posted), so that within a batch messages match by tag; zero-byte ones are skipped.
  void post(const Transfer& transfer);
  // Launches the posted transfers and returns once NCCL has taken them (not when they are
  // done): the compute stream goes on while they are in flight.
  void flush();
  // Flushes, then waits until every launched transfer and collective is done.
  void wait(const char* operation);
  // `transfers` as one group of their own (an all-to-all), waited for.
  void exchange(const char* operation, std::vector<Transfer> transfers);
  // One collective: `launch` makes the NCCL call on the communication stream; waited for.
  void collective(const char* operation, const std::function<void()>& launch);
  // Polls until the communicator leaves ncclInProgress (after init or split).
  void settle(const char* operation);

  // At the end of the communicator's life. Unwinding, when a peer may be gone, it aborts;
  // otherwise it finalizes and settles, and aborts on an error or a timeout. Returns
  // whether the communicator is still to be destroyed (an abort frees it). Never throws.
  bool close() noexcept;
  // Aborts the communicator once; later calls throw.
  void abort() noexcept;
  bool aborted() const { return aborted_; }

 private:
  void launch(const char* operation, std::vector<Transfer> transfers);
  void launch_group(const std::vector<Transfer>& transfers);
  void finish(const char* operation);
  void require_alive(const char* operation) const;
  bool ready(const char* operation);
  [[noreturn]] void fail(const char* operation, const std::string& why);

  NcclCalls& calls_;
  int rank_;
  std::chrono::milliseconds timeout_;
  std::vector<Transfer> pending_;
  bool aborted_ = false;
};

// STRATA_NCCL_TIMEOUT_S from the environment, default 600 s.
std::chrono::milliseconds nccl_timeout();

}  // namespace strata
