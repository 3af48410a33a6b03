#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <thread>

#include "comm_checks.h"
#include "strata/comm/in_process_communicator.h"

using namespace strata;

namespace {
void run_at_all_sizes(void (*check)(Communicator&)) {
  for (int ranks = 1; ranks <= 4; ++ranks) {
    INFO("ranks " << ranks);
    REQUIRE_NOTHROW(run_in_process(ranks, check));
  }
}

// Runs body on `ranks` threads and returns the error run_in_process threw; fails the test
// if that takes longer than a few seconds (a hang).
std::string error_of(int ranks, const std::function<void(Communicator&)>& body) {
  auto done = std::async(std::launch::async, [&]() -> std::string {
    try {
      run_in_process(ranks, body);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  });
  REQUIRE(done.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  return done.get();
}
}  // namespace

TEST_CASE("in-process all_reduce_sum: every dtype, awkward sizes, ring counts") {
  run_at_all_sizes(comm_checks::all_reduce);
}
TEST_CASE("in-process all_to_all_v") {
  run_at_all_sizes(comm_checks::all_to_all_v);
}
TEST_CASE("in-process all_gather") {
  run_at_all_sizes(comm_checks::all_gather);
}
TEST_CASE("in-process broadcast from every root") {
  run_at_all_sizes(comm_checks::broadcast);
}
TEST_CASE("in-process barrier") {
  run_at_all_sizes(comm_checks::barrier);
}
TEST_CASE("in-process point-to-point, tags out of order") {
  run_at_all_sizes(comm_checks::point_to_point);
}
TEST_CASE("in-process pipelined sends, flushed chunk by chunk") {
  run_at_all_sizes(comm_checks::pipelined_sends);
}
TEST_CASE("in-process split") {
  run_at_all_sizes(comm_checks::split);
}

TEST_CASE("ring all-reduce bytes: hand-counted values and the sum over ranks") {
  // P = 3, n = 4: chunks 2, 1, 1. Rank r skips chunks (r+1)%3 and (r+2)%3.
  CHECK(ring_all_reduce_bytes(4, 3, 0, 4) == (3 + 3) * 4);
  CHECK(ring_all_reduce_bytes(4, 3, 1, 4) == (3 + 2) * 4);
  CHECK(ring_all_reduce_bytes(4, 3, 2, 4) == (2 + 3) * 4);
  CHECK(ring_all_reduce_bytes(1001, 1, 0, 8) == 0);
  for (int ranks = 1; ranks <= 9; ++ranks) {
    for (std::int64_t n : {0, 1, 2, 7, 31, 33, 1001}) {
      std::int64_t sum = 0;
      for (int r = 0; r < ranks; ++r) sum += ring_all_reduce_bytes(n, ranks, r, 4);
      CHECK(sum == 2 * (ranks - 1) * n * 4);
    }
  }
}

TEST_CASE("byte counters: names, add, reset, +=") {
  CHECK(comm_category_name(CommCategory::kHaloForward) == "halo_fwd");
  CHECK(comm_category_name(CommCategory::kHaloBackward) == "halo_bwd");
  CHECK(comm_category_name(CommCategory::kAllReduce) == "allreduce");
  CHECK(comm_category_name(CommCategory::kStageForward) == "stage_fwd");
  CHECK(comm_category_name(CommCategory::kStageBackward) == "stage_bwd");
  CHECK(comm_category_name(CommCategory::kEval) == "eval");
  CHECK(comm_category_name(CommCategory::kControl) == "control");
  ByteCounters a, b;
  a.add(CommCategory::kEval, 5, 0.5);
  b.add(CommCategory::kEval, 7);
  b.add(CommCategory::kControl, 1, 0.25);
  a += b;
  CHECK(a.bytes_sent(CommCategory::kEval) == 12);
  CHECK(a.wait_seconds(CommCategory::kEval) == 0.5);
  CHECK(a.total_bytes_sent() == 13);
  CHECK(a.total_wait_seconds() == 0.75);
  a.reset();
  CHECK(a.total_bytes_sent() == 0);
}

TEST_CASE("in-process: a throwing rank wakes ranks blocked in collectives and recv") {
  const std::string what = error_of(4, [](Communicator& comm) {
    if (comm.rank() == 1) throw Error(ErrorKind::kInput, "boom");
    if (comm.rank() == 2) {
      std::byte b{};
      comm.recv(1, 0, std::span(&b, 1));
    }
    comm.barrier();
  });
  CHECK_THAT(what, Catch::Contains("rank 1: boom"));
}

TEST_CASE("in-process: a rank that throws later wakes the others too") {
  const std::string what = error_of(3, [](Communicator& comm) {
    comm.barrier();
    if (comm.rank() == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      throw std::runtime_error("late failure");
    }
    std::int64_t x = 1;
    comm.all_reduce_sum(std::as_writable_bytes(std::span(&x, 1)), DType::kInt64,
                        CommCategory::kAllReduce);
  });
  CHECK_THAT(what, Catch::Contains("rank 0: late failure"));
}

TEST_CASE("in-process: abort ends every rank, also across sub-communicators") {
  const std::string what = error_of(4, [](Communicator& comm) {
    auto child = comm.split(comm.rank() % 2, comm.rank());
    if (comm.rank() == 3) comm.abort("stop here");
    child->barrier();  // rank 1's child group waits for rank 3 forever without abort
    comm.barrier();
  });
  CHECK_THAT(what, Catch::Contains("rank 3") && Catch::Contains("stop here"));
}

TEST_CASE("in-process: mismatched arguments throw instead of hanging") {
  // Each rank sends 3 bytes to the other, but rank 1 expects only 2.
  CHECK_THAT(
      error_of(2,
               [](Communicator& comm) {
                 const bool first = comm.rank() == 0;
                 const std::vector<std::byte> send(3);
                 std::vector<std::byte> recv(first ? 3 : 2);
                 const std::vector<std::int64_t> send_counts =
                     first ? std::vector<std::int64_t>{0, 3} : std::vector<std::int64_t>{3, 0};
                 const std::vector<std::int64_t> recv_counts =
                     first ? std::vector<std::int64_t>{0, 3} : std::vector<std::int64_t>{2, 0};
                 comm.all_to_all_v(send, send_counts, recv, recv_counts,
                                   CommCategory::kHaloForward);
               }),
      Catch::Contains("expects 2"));
  CHECK_THAT(error_of(2,
                      [](Communicator& comm) {
                        std::vector<std::byte> data(comm.rank() == 0 ? 4 : 5);
                        if (comm.rank() == 0)
                          comm.send(1, 3, data, CommCategory::kEval);
                        else
                          comm.recv(0, 3, data);
                      }),
             Catch::Contains("sent 4 bytes"));
  CHECK_THAT(error_of(2,
                      [](Communicator& comm) {
                        std::byte b{};
                        if (comm.rank() == 0)
                          comm.barrier();
                        else
                          comm.broadcast(std::span(&b, 1), 0, CommCategory::kEval);
                      }),
             Catch::Contains("different collective"));
  CHECK_THAT(error_of(1,
                      [](Communicator& comm) {
                        std::vector<std::byte> data(6);
                        comm.all_reduce_sum(data, DType::kFloat32, CommCategory::kAllReduce);
                      }),
             Catch::Contains("whole number"));
}

TEST_CASE("in-process: time blocked in a collective is booked as wait time") {
  run_in_process(2, [](Communicator& comm) {
    if (comm.rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    comm.barrier();
    if (comm.rank() == 1 && comm.counters().wait_seconds(CommCategory::kControl) < 0.05)
      throw Error(ErrorKind::kInternal, "barrier wait not booked");
  });
}

TEST_CASE("in-process: hand-counted bytes at P = 3") {
  run_in_process(3, [](Communicator& comm) {
    const int me = comm.rank();
    std::vector<std::byte> ten(10), five(5), fifteen(15);
    comm.broadcast(ten, 1, CommCategory::kEval);  // root sends 10 bytes to 2 ranks
    COMM_EXPECT(comm, comm.counters().bytes_sent(CommCategory::kEval) == (me == 1 ? 20 : 0), "");
    comm.all_gather(five, fifteen, CommCategory::kHaloBackward);  // 5 bytes to 2 ranks
    COMM_EXPECT(comm, comm.counters().bytes_sent(CommCategory::kHaloBackward) == 10, "");
    // Rank r sends r + p + 1 bytes to rank p: rank 0 sends 1 (to itself), 2 and 3.
    const std::vector<std::int64_t> sends{me + 1, me + 2, me + 3}, recvs{me + 1, me + 2, me + 3};
    std::vector<std::byte> send(static_cast<std::size_t>(3 * me + 6)), recv(send.size());
    comm.all_to_all_v(send, sends, recv, recvs, CommCategory::kHaloForward);
    const std::int64_t expected[] = {2 + 3, 2 + 4, 3 + 4};
    COMM_EXPECT(comm, comm.counters().bytes_sent(CommCategory::kHaloForward) == expected[me], "");
    Request to_self = comm.isend(me, 0, five, CommCategory::kStageForward);  // not counted
    comm.recv(me, 0, five);
    comm.wait(to_self);
    COMM_EXPECT(comm, comm.counters().bytes_sent(CommCategory::kStageForward) == 0, "");
  });
}
