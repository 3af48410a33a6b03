#include "strata/comm/communicator.h"

#include <numeric>

#include "strata/core/error.h"
#include "strata/core/timer.h"

namespace strata {

namespace {
std::int64_t ssize(std::span<const std::byte> data) {
  return static_cast<std::int64_t>(data.size());
}

void require_counts(std::span<const std::int64_t> counts, std::int64_t bytes, int ranks,
                    const char* which) {
  STRATA_REQUIRE(static_cast<int>(counts.size()) == ranks, "all_to_all_v: ", which, " has ",
                 counts.size(), " counts for ", ranks, " ranks");
  for (std::int64_t c : counts) STRATA_REQUIRE(c >= 0, "all_to_all_v: negative ", which);
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  STRATA_REQUIRE(total == bytes, "all_to_all_v: ", which, " sum to ", total,
                 " bytes but the buffer has ", bytes);
}
}  // namespace

void Communicator::require_peer(int peer, const char* operation) const {
  STRATA_REQUIRE(peer >= 0 && peer < size(), operation, ": rank ", peer, " out of range [0, ",
                 size(), ")");
}

void Communicator::all_reduce_sum(std::span<std::byte> data, DType dtype, CommCategory category) {
  const std::size_t element = dtype_size(dtype);
  STRATA_REQUIRE(data.size() % element == 0, "all_reduce_sum: ", data.size(),
                 " bytes is not a whole number of ", element, "-byte elements");
  const auto elements = static_cast<std::int64_t>(data.size() / element);
  const Timer timer;
  do_all_reduce_sum(data, dtype);
  counters_.add(category, ring_all_reduce_bytes(elements, size(), rank(), element),
                timer.seconds());
}

void Communicator::all_to_all_v(std::span<const std::byte> send,
                                std::span<const std::int64_t> send_counts_bytes,
                                std::span<std::byte> recv,
                                std::span<const std::int64_t> recv_counts_bytes,
                                CommCategory category) {
  require_counts(send_counts_bytes, ssize(send), size(), "send counts");
  require_counts(recv_counts_bytes, ssize(recv), size(), "recv counts");
  const Timer timer;
  do_all_to_all_v(send, send_counts_bytes, recv, recv_counts_bytes);
  counters_.add(category, ssize(send) - send_counts_bytes[rank()], timer.seconds());
}

void Communicator::all_gather(std::span<const std::byte> mine, std::span<std::byte> all,
                              CommCategory category) {
  STRATA_REQUIRE(all.size() == mine.size() * static_cast<std::size_t>(size()),
                 "all_gather: ", all.size(), " output bytes for ", mine.size(),
                 " bytes from each of ", size(), " ranks");
  const Timer timer;
  do_all_gather(mine, all);
  counters_.add(category, ssize(mine) * (size() - 1), timer.seconds());
}

void Communicator::broadcast(std::span<std::byte> data, int root, CommCategory category) {
  require_peer(root, "broadcast");
  const Timer timer;
  do_broadcast(data, root);
  const std::int64_t sent = rank() == root ? ssize(data) * (size() - 1) : 0;
  counters_.add(category, sent, timer.seconds());
}

void Communicator::barrier() {
  const Timer timer;
  do_barrier();
  counters_.add(CommCategory::kControl, 0, timer.seconds());
}

Request Communicator::isend(int peer, int tag, std::span<const std::byte> data,
                            CommCategory category) {
  require_peer(peer, "isend");
  STRATA_REQUIRE(tag >= 0, "isend: negative tag ", tag);
  Request request(do_isend(peer, tag, data), category);
  counters_.add(category, peer == rank() ? 0 : ssize(data));
  return request;
}

Request Communicator::irecv(int peer, int tag, std::span<std::byte> data, CommCategory category) {
  require_peer(peer, "irecv");
  STRATA_REQUIRE(tag >= 0, "irecv: negative tag ", tag);
  return Request(do_irecv(peer, tag, data), category);
}

void Communicator::wait(Request& request) {
  if (!request.active()) return;
  const Timer timer;
  do_wait(*request.state_);
  request.state_.reset();
  counters_.add(request.category_, 0, timer.seconds());
}

void Communicator::wait_all(std::span<Request> requests) {
  for (Request& request : requests) wait(request);
}

void Communicator::send(int peer, int tag, std::span<const std::byte> data, CommCategory category) {
  Request request = isend(peer, tag, data, category);
  wait(request);
}

void Communicator::recv(int peer, int tag, std::span<std::byte> data, CommCategory category) {
  Request request = irecv(peer, tag, data, category);
  wait(request);
}

std::unique_ptr<Communicator> Communicator::split(int color, int key) {
  STRATA_REQUIRE(color >= 0, "split: negative color ", color);
  const Timer timer;
  auto child = do_split(color, key);
  counters_.add(CommCategory::kControl, 0, timer.seconds());
  return child;
}

}  // namespace strata
