#include "strata/comm/nccl_sequencer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>
#include <tuple>
#include <utility>

#include "strata/core/error.h"

namespace strata {

std::chrono::milliseconds nccl_timeout() {
  const char* value = std::getenv("STRATA_NCCL_TIMEOUT_S");
  const long seconds = value ? std::strtol(value, nullptr, 10) : 600;
  return std::chrono::seconds(seconds > 0 ? seconds : 600);
}

NcclSequencer::NcclSequencer(NcclCalls& calls, int rank, std::chrono::milliseconds timeout)
    : calls_(calls), rank_(rank), timeout_(timeout) {}

void NcclSequencer::post(const Transfer& transfer) {
  require_alive("post");
  pending_.push_back(transfer);
}

void NcclSequencer::flush() {
  if (!pending_.empty()) launch("flush", std::exchange(pending_, {}));
}

void NcclSequencer::wait(const char* operation) {
  if (!pending_.empty()) launch(operation, std::exchange(pending_, {}));
  finish(operation);
}

void NcclSequencer::exchange(const char* operation, std::vector<Transfer> transfers) {
  launch(operation, std::move(transfers));
  finish(operation);
}

void NcclSequencer::collective(const char* operation, const std::function<void()>& launch_call) {
  require_alive(operation);
  calls_.follow_compute();
  launch_call();
  settle(operation);
  finish(operation);
}

void NcclSequencer::launch(const char* operation, std::vector<Transfer> transfers) {
  require_alive(operation);
  // Sends and receives between a pair then meet in the same (tag, order) sequence; a
  // message's two sides agree on its size, so both skip an empty one.
  std::stable_sort(transfers.begin(), transfers.end(), [](const Transfer& a, const Transfer& b) {
    return std::tie(a.peer, a.tag) < std::tie(b.peer, b.tag);
  });
  std::erase_if(transfers, [](const Transfer& t) { return t.bytes == 0; });
  if (transfers.empty()) return;
  calls_.follow_compute();
  launch_group(transfers);
  settle(operation);
}

void NcclSequencer::launch_group(const std::vector<Transfer>& transfers) {
  calls_.group_start();
  try {
    for (const Transfer& t : transfers) {
      if (t.send)
        calls_.send(t.data, t.bytes, t.peer);
      else
        calls_.recv(t.data, t.bytes, t.peer);
    }
  } catch (...) {
    // The group is open on this thread: left open, it would take in the thread's next NCCL
    // calls, the abort's included. NCCL drops a group in which a call failed.
    try {
      calls_.group_end();
    } catch (...) {
    }
    throw;
  }
  calls_.group_end();
}

void NcclSequencer::settle(const char* operation) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (!ready(operation)) {
    if (std::chrono::steady_clock::now() > deadline)
      fail(operation, "no progress before STRATA_NCCL_TIMEOUT_S (did a peer fail?)");
    std::this_thread::yield();
  }
}

void NcclSequencer::finish(const char* operation) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (!(ready(operation) && calls_.stream_idle())) {
    if (std::chrono::steady_clock::now() > deadline)
      fail(operation, "not done before STRATA_NCCL_TIMEOUT_S (did a peer fail?)");
    std::this_thread::yield();
  }
}

bool NcclSequencer::ready(const char* operation) {
  require_alive(operation);
  std::string error;
  switch (calls_.state(error)) {
    case NcclCalls::State::kReady:
      return true;
    case NcclCalls::State::kInProgress:
      return false;
    case NcclCalls::State::kFailed:
      break;
  }
  fail(operation, error);
}

bool NcclSequencer::close() noexcept {
  if (aborted_) return false;
  if (std::uncaught_exceptions() > 0) {
    abort();
    return false;
  }
  try {
    calls_.finalize();
    settle("ncclCommFinalize");
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata: %s\n", e.what());
    abort();
    return false;
  }
}

void NcclSequencer::abort() noexcept {
  if (aborted_) return;
  aborted_ = true;
  pending_.clear();
  calls_.abort();
}

void NcclSequencer::require_alive(const char* operation) const {
  if (aborted_)
    throw Error(ErrorKind::kInternal, cat("rank ", rank_, ": NCCL ", operation,
                                          ": the communicator was aborted after an earlier error"));
}

void NcclSequencer::fail(const char* operation, const std::string& why) {
  abort();
  throw Error(ErrorKind::kInternal, cat("rank ", rank_, ": NCCL ", operation, ": ", why));
}

}  // namespace strata
