#include "comm_checks.h"

#include <cstring>
#include <numeric>

namespace strata::comm_checks {
namespace {

std::span<std::byte> bytes_of(auto& v) {
  return std::as_writable_bytes(std::span(v));
}

std::byte pattern(int a, int b, std::int64_t j) {
  return static_cast<std::byte>((a * 31 + b * 17 + j * 7 + 3) & 0xff);
}

std::vector<std::byte> pattern_block(int a, int b, std::int64_t n) {
  std::vector<std::byte> block(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) block[static_cast<std::size_t>(j)] = pattern(a, b, j);
  return block;
}

// Resets the counters, runs op, checks this rank's bytes in `category` (and that no other
// category but control sent anything), then checks the sum over ranks.
template <typename Op>
void expect_counted(Communicator& comm, CommCategory category, std::int64_t mine,
                    std::int64_t total, Op op) {
  comm.counters().reset();
  op();
  const ByteCounters counted = comm.counters();
  COMM_EXPECT(comm, counted.bytes_sent(category) == mine, comm_category_name(category), " ",
              counted.bytes_sent(category), " != ", mine);
  COMM_EXPECT(comm, counted.total_bytes_sent() == mine, "other categories counted bytes");
  const auto all = gather_int64(comm, counted.bytes_sent(category));
  const std::int64_t sum = std::accumulate(all.begin(), all.end(), std::int64_t{0});
  COMM_EXPECT(comm, sum == total, "sum over ranks ", sum, " != ", total);
}

template <typename T>
T value(int rank, std::int64_t i) {
  if constexpr (std::is_same_v<T, std::uint8_t>)
    return static_cast<T>(rank * 37 + i * 11 + 200);
  else
    return static_cast<T>((rank + 1) * (i % 13) - 5);
}

template <typename T>
void all_reduce_typed(Communicator& comm, DType dtype, std::int64_t n) {
  std::vector<T> data(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) data[i] = value<T>(comm.rank(), i);
  const auto element = static_cast<std::int64_t>(sizeof(T));
  const std::int64_t mine = ring_all_reduce_bytes(n, comm.size(), comm.rank(), sizeof(T));
  const std::int64_t total = 2 * (comm.size() - 1) * n * element;
  expect_counted(comm, CommCategory::kAllReduce, mine, total,
                 [&] { comm.all_reduce_sum(bytes_of(data), dtype, CommCategory::kAllReduce); });
  for (std::int64_t i = 0; i < n; ++i) {
    T expected = value<T>(0, i);
    for (int r = 1; r < comm.size(); ++r) expected = static_cast<T>(expected + value<T>(r, i));
    COMM_EXPECT(comm, data[i] == expected, "dtype ", static_cast<int>(dtype), " n ", n, " i ", i);
  }
}

std::int64_t a2a_count(int from, int to, int round) {
  return kSizes[(from * 7 + to * 3 + round) % 5];
}

void all_to_all_round(Communicator& comm, int round) {
  const int me = comm.rank();
  std::vector<std::int64_t> send_counts, recv_counts;
  std::vector<std::byte> send;
  std::int64_t mine = 0, total = 0;
  for (int p = 0; p < comm.size(); ++p) {
    send_counts.push_back(a2a_count(me, p, round));
    recv_counts.push_back(a2a_count(p, me, round));
    const auto block = pattern_block(me, p, send_counts.back());
    send.insert(send.end(), block.begin(), block.end());
    if (p != me) mine += send_counts.back();
    for (int q = 0; q < comm.size(); ++q) total += q == p ? 0 : a2a_count(p, q, round);
  }
  std::vector<std::byte> recv(
      std::accumulate(recv_counts.begin(), recv_counts.end(), std::size_t{0}));
  expect_counted(comm, CommCategory::kHaloForward, mine, total, [&] {
    comm.all_to_all_v(send, send_counts, recv, recv_counts, CommCategory::kHaloForward);
  });
  std::vector<std::byte> expected;
  for (int p = 0; p < comm.size(); ++p) {
    const auto block = pattern_block(p, me, recv_counts[p]);
    expected.insert(expected.end(), block.begin(), block.end());
  }
  COMM_EXPECT(comm, recv == expected, "round ", round);
}

constexpr int kTags = 4;

std::vector<std::byte> p2p_message(int from, int to, int tag) {
  return pattern_block(from * kTags + tag, to, kSizes[(from + to * 2 + tag) % 5]);
}

std::int64_t p2p_bytes(int from, int ranks) {
  std::int64_t bytes = 0;
  for (int to = 0; to < ranks; ++to)
    for (int tag = 0; tag < kTags; ++tag)
      bytes += to == from ? 0 : static_cast<std::int64_t>(p2p_message(from, to, tag).size());
  return bytes;
}

void expect_p2p_counts(Communicator& comm) {
  const std::int64_t counted = comm.counters().bytes_sent(CommCategory::kStageForward);
  COMM_EXPECT(comm, counted == p2p_bytes(comm.rank(), comm.size()), counted);
  const auto all = gather_int64(comm, counted);
  std::int64_t total = 0;
  for (int p = 0; p < comm.size(); ++p) total += p2p_bytes(p, comm.size());
  COMM_EXPECT(comm, std::accumulate(all.begin(), all.end(), std::int64_t{0}) == total, total);
}

}  // namespace

std::vector<std::int64_t> gather_int64(Communicator& comm, std::int64_t mine) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(comm.size()));
  comm.all_gather(std::as_bytes(std::span(&mine, 1)), bytes_of(all), CommCategory::kControl);
  return all;
}

void all_reduce(Communicator& comm) {
  for (std::int64_t n : kSizes) {
    all_reduce_typed<float>(comm, DType::kFloat32, n);
    all_reduce_typed<double>(comm, DType::kFloat64, n);
    all_reduce_typed<std::int32_t>(comm, DType::kInt32, n);
    all_reduce_typed<std::int64_t>(comm, DType::kInt64, n);
    all_reduce_typed<std::uint8_t>(comm, DType::kUInt8, n);
  }
}

void all_to_all_v(Communicator& comm) {
  for (int round = 0; round < 5; ++round) all_to_all_round(comm, round);
}

void all_gather(Communicator& comm) {
  const int ranks = comm.size();
  for (std::int64_t n : kSizes) {
    const auto mine = pattern_block(comm.rank(), 1, n);
    std::vector<std::byte> all(static_cast<std::size_t>(n * ranks), std::byte{0xEE});
    expect_counted(comm, CommCategory::kEval, n * (ranks - 1), n * (ranks - 1) * ranks,
                   [&] { comm.all_gather(mine, all, CommCategory::kEval); });
    std::vector<std::byte> expected;
    for (int p = 0; p < ranks; ++p) {
      const auto block = pattern_block(p, 1, n);
      expected.insert(expected.end(), block.begin(), block.end());
    }
    COMM_EXPECT(comm, all == expected, "n ", n);
  }
}

void broadcast(Communicator& comm) {
  for (int root = 0; root < comm.size(); ++root) {
    for (std::int64_t n : kSizes) {
      const auto expected = pattern_block(root, 2, n);
      std::vector<std::byte> data =
          comm.rank() == root ? expected : std::vector<std::byte>(expected.size(), std::byte{1});
      const std::int64_t total = n * (comm.size() - 1);
      expect_counted(comm, CommCategory::kStageBackward, comm.rank() == root ? total : 0, total,
                     [&] { comm.broadcast(data, root, CommCategory::kStageBackward); });
      COMM_EXPECT(comm, data == expected, "root ", root, " n ", n);
    }
  }
}

void barrier(Communicator& comm) {
  expect_counted(comm, CommCategory::kControl, 0, 0, [&] {
    for (int i = 0; i < 5; ++i) comm.barrier();
  });
}

// Every rank sends kTags messages to every rank (itself too) in tag order; receives are
// posted in reverse peer and tag order, and waited in yet another order.
void point_to_point(Communicator& comm) {
  const int me = comm.rank(), ranks = comm.size();
  std::vector<std::vector<std::byte>> sends, recvs;
  std::vector<Request> send_requests, recv_requests;
  recvs.reserve(static_cast<std::size_t>(ranks * kTags));
  comm.counters().reset();
  for (int p = 0; p < ranks; ++p) {
    for (int tag = 0; tag < kTags; ++tag) {
      sends.push_back(p2p_message(me, p, tag));
      send_requests.push_back(comm.isend(p, tag, sends.back(), CommCategory::kStageForward));
    }
  }
  for (int p = ranks - 1; p >= 0; --p) {
    for (int tag = kTags - 1; tag >= 0; --tag) {
      recvs.emplace_back(p2p_message(p, me, tag).size());
      recv_requests.push_back(comm.irecv(p, tag, recvs.back(), CommCategory::kStageForward));
    }
  }
  for (std::size_t i = 0; i < recv_requests.size(); i += 2) comm.wait(recv_requests[i]);
  comm.wait_all(recv_requests);
  comm.wait_all(send_requests);
  for (std::size_t k = 0; k < recvs.size(); ++k) {
    const int p = ranks - 1 - static_cast<int>(k) / kTags,
              tag = kTags - 1 - static_cast<int>(k) % kTags;
    COMM_EXPECT(comm, recvs[k] == p2p_message(p, me, tag), "from ", p, " tag ", tag);
  }
  expect_p2p_counts(comm);
}

void pipelined_sends(Communicator& comm) {
  constexpr int kChunks = 6;
  const int me = comm.rank(), ranks = comm.size();
  std::vector<std::vector<std::byte>> outputs;
  outputs.reserve(kChunks);
  std::vector<Request> sends;
  for (int c = 0; c < kChunks; ++c) {
    if (me > 0) {
      std::vector<std::byte> input(p2p_message(me - 1, me, c).size());
      comm.recv(me - 1, c, input, CommCategory::kStageForward);
      COMM_EXPECT(comm, input == p2p_message(me - 1, me, c), "chunk ", c);
    }
    if (me + 1 < ranks) {
      outputs.push_back(p2p_message(me, me + 1, c));
      sends.push_back(comm.isend(me + 1, c, outputs.back(), CommCategory::kStageForward));
      comm.flush();
    }
  }
  comm.wait_all(sends);
}

void split(Communicator& comm) {
  const int me = comm.rank(), ranks = comm.size();
  auto child = comm.split(me % 2, -me);  // reversed order inside each color
  const int same_color = (ranks - me % 2 + 1) / 2;
  COMM_EXPECT(comm, child->size() == same_color, child->size());
  COMM_EXPECT(comm, child->rank() == (ranks - 1 - me) / 2, child->rank());
  std::int64_t sum = me;
  child->all_reduce_sum(std::as_writable_bytes(std::span(&sum, 1)), DType::kInt64,
                        CommCategory::kAllReduce);
  std::int64_t expected = 0;
  for (int r = me % 2; r < ranks; r += 2) expected += r;
  COMM_EXPECT(comm, sum == expected, sum, " != ", expected);
  COMM_EXPECT(comm, comm.counters().bytes_sent(CommCategory::kAllReduce) == 0, "parent counted");
  COMM_EXPECT(comm,
              child->counters().bytes_sent(CommCategory::kAllReduce) ==
                  ring_all_reduce_bytes(1, child->size(), child->rank(), 8),
              "child count");
  auto whole = comm.split(0, 0);  // one color, ties by parent rank: same as parent
  COMM_EXPECT(comm, whole->size() == ranks && whole->rank() == me, whole->rank());
  auto grandchild = child->split(0, child->rank());
  COMM_EXPECT(comm, grandchild->rank() == child->rank(), grandchild->rank());
  all_gather(*grandchild);
  point_to_point(*child);
}

}  // namespace strata::comm_checks
