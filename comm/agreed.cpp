#include "strata/comm/agreed.h"

#include <vector>

#include "strata/core/error.h"

namespace strata {
namespace {

constexpr std::int32_t kOk = 0, kInput = 1, kInternal = 2;

std::int32_t capture(const std::function<void()>& step, std::string& message) {
  try {
    step();
    return kOk;
  } catch (const Error& e) {
    message = e.what();
    return e.kind() == ErrorKind::kInput ? kInput : kInternal;
  } catch (const std::exception& e) {
    message = e.what();
    return kInternal;
  }
}

std::string broadcast_message(Communicator& comm, int root, std::string message) {
  std::int64_t size = static_cast<std::int64_t>(message.size());
  comm.broadcast(std::as_writable_bytes(std::span(&size, 1)), root, CommCategory::kControl);
  message.resize(static_cast<std::size_t>(size));
  comm.broadcast(std::as_writable_bytes(std::span(message.data(), message.size())), root,
                 CommCategory::kControl);
  return message;
}

}  // namespace

void run_agreed(Communicator& comm, const std::function<void()>& step) {
  std::string message;
  const std::int32_t mine = capture(step, message);
  std::vector<std::int32_t> all(static_cast<std::size_t>(comm.size()));
  comm.all_gather(std::as_bytes(std::span(&mine, 1)), std::as_writable_bytes(std::span(all)),
                  CommCategory::kControl);
  for (int r = 0; r < comm.size(); ++r) {
    if (all[r] == kOk) continue;
    message = broadcast_message(comm, r, comm.rank() == r ? message : std::string());
    throw AgreedError(all[r] == kInput ? ErrorKind::kInput : ErrorKind::kInternal,
                      comm.size() == 1 ? message : cat("rank ", r, ": ", message));
  }
}

}  // namespace strata
