// A fake non-blocking NCCL communicator for the sequencer's tests. Like NCCL, a launch
// (the end of a group, a collective, finalize) leaves it in progress for a while, and any
// call made while it is in progress is refused with NCCL's message
// (ncclCommEnsureReady); ncclGroupStart, which takes no communicator, is always accepted.
// Launched work then occupies the stream for a while.
#pragma once
#include <climits>
#include <string>
#include <vector>

#include "strata/comm/nccl_sequencer.h"
#include "strata/core/error.h"

namespace strata::test {

class FakeNccl : public NcclCalls {
 public:
  struct Op {
    bool send;
    int peer;
    std::size_t bytes;
  };
  static constexpr int kForever = INT_MAX;

  int busy_polls = 3;              // state() queries in progress after each launch
  int stream_polls = 2;            // stream_idle() queries busy after each launch
  int failing_call = -1;           // the send or recv of this index (from 0) fails
  std::string async_error;         // once set, reported by state()
  std::vector<std::string> calls;  // every call but the polls, in order
  std::vector<std::vector<Op>> batches;
  int group_depth = 0;
  int stream_queries = 0;
  int aborts = 0;

  bool in_progress() const { return busy_left_ > 0; }

  State state(std::string& error) override {
    if (!async_error.empty()) {
      error = async_error;
      return State::kFailed;
    }
    if (busy_left_ == 0) return State::kReady;
    if (busy_left_ != kForever) --busy_left_;
    return State::kInProgress;
  }
  void follow_compute() override { calls.push_back("follow_compute"); }
  void group_start() override {
    ++group_depth;
    calls.push_back("group_start");
  }
  void group_end() override {
    calls.push_back("group_end");
    if (--group_depth > 0) return;
    if (!group_failed_ && !group_.empty()) {
      batches.push_back(group_);
      start_work();
    }
    group_.clear();
    group_failed_ = false;
  }
  void send(const void*, std::size_t bytes, int peer) override { transfer(true, bytes, peer); }
  void recv(void*, std::size_t bytes, int peer) override { transfer(false, bytes, peer); }
  bool stream_idle() override {
    ++stream_queries;
    if (stream_left_ == 0) return true;
    if (stream_left_ != kForever) --stream_left_;
    return false;
  }
  void finalize() override {
    use("finalize");
    busy_left_ = busy_polls;
  }
  void abort() noexcept override {
    ++aborts;
    calls.push_back("abort");
  }
  // A collective such as ncclAllReduce.
  void collective() {
    use("collective");
    start_work();
  }

 private:
  void use(const char* call) {
    if (in_progress())
      throw Error(ErrorKind::kInternal,
                  cat(call, ": ncclInvalidArgument (Attempt to use communicator before the ",
                      "previous operation returned ncclSuccess)"));
    calls.push_back(call);
  }
  void transfer(bool is_send, std::size_t bytes, int peer) {
    use(is_send ? "send" : "recv");
    if (transfers_++ == failing_call) {
      group_failed_ = true;
      throw Error(ErrorKind::kInternal, "ncclInvalidArgument: the fake's failing call");
    }
    group_.push_back({is_send, peer, bytes});
    if (group_depth == 0) {  // outside a group a call is a group of its own
      batches.push_back(group_);
      group_.clear();
      start_work();
    }
  }
  void start_work() {
    busy_left_ = busy_polls;
    stream_left_ = stream_polls;
  }

  int busy_left_ = 0, stream_left_ = 0, transfers_ = 0;
  bool group_failed_ = false;
  std::vector<Op> group_;
};

}  // namespace strata::test
