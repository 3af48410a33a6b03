// The NCCL communicator's state machine (nccl_sequencer.h) driven by a fake non-blocking
// NCCL (fake_nccl.h): no GPU and no NCCL needed.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <stdexcept>

#include "fake_nccl.h"
#include "strata/comm/nccl_sequencer.h"

namespace strata {
namespace {

using namespace std::chrono_literals;
using test::FakeNccl;
using Transfer = NcclSequencer::Transfer;

float block[4];

Transfer send_to(int peer, int tag, std::size_t bytes = 4) {
  return {true, peer, tag, block, bytes};
}
Transfer recv_from(int peer, int tag, std::size_t bytes = 4) {
  return {false, peer, tag, block, bytes};
}

TEST_CASE("a flush returns once NCCL took the group, so the next chunk's send is accepted") {
  FakeNccl nccl;
  NcclSequencer sequencer(nccl, 0, 10s);
  sequencer.post(send_to(1, 0));
  sequencer.flush();
  CHECK_FALSE(nccl.in_progress());
  sequencer.post(send_to(1, 1));  // the pipeline's next chunk
  REQUIRE_NOTHROW(sequencer.flush());
  sequencer.wait("wait");
  CHECK(nccl.batches.size() == 2);
}

TEST_CASE("a flush does not wait for the transfer: the compute stream goes on") {
  FakeNccl nccl;
  nccl.stream_polls = FakeNccl::kForever;  // the peer has not posted its receive
  NcclSequencer sequencer(nccl, 0, 10s);
  sequencer.post(send_to(1, 0));
  sequencer.flush();
  CHECK(nccl.stream_queries == 0);
  // The communication stream waits for the data's producers before the group.
  CHECK(nccl.calls ==
        std::vector<std::string>{"follow_compute", "group_start", "send", "group_end"});
}

TEST_CASE("wait launches what is posted and returns when the stream is done") {
  FakeNccl nccl;
  nccl.stream_polls = 5;
  NcclSequencer sequencer(nccl, 0, 10s);
  sequencer.post(recv_from(1, 0));
  sequencer.post(send_to(1, 0));
  sequencer.wait("wait");
  CHECK(nccl.stream_queries == 6);
  CHECK(nccl.batches.size() == 1);
}

TEST_CASE("a batch goes sorted by peer, then tag, then order posted, empty messages skipped") {
  FakeNccl nccl;
  NcclSequencer sequencer(nccl, 0, 10s);
  sequencer.post(send_to(2, 1, 8));
  sequencer.post(recv_from(1, 5, 12));
  sequencer.post(send_to(2, 0, 0));
  sequencer.post(send_to(1, 5, 16));
  sequencer.post(recv_from(2, 0, 20));
  sequencer.wait("wait");
  REQUIRE(nccl.batches.size() == 1);
  const auto& batch = nccl.batches[0];
  REQUIRE(batch.size() == 4);
  CHECK((batch[0].peer == 1 && !batch[0].send && batch[0].bytes == 12));
  CHECK((batch[1].peer == 1 && batch[1].send && batch[1].bytes == 16));
  CHECK((batch[2].peer == 2 && !batch[2].send && batch[2].bytes == 20));
  CHECK((batch[3].peer == 2 && batch[3].send && batch[3].bytes == 8));
}

TEST_CASE("an all-to-all is a group of its own, waited for") {
  FakeNccl nccl;
  NcclSequencer sequencer(nccl, 0, 10s);
  sequencer.post(send_to(1, 3));
  sequencer.exchange("all_to_all_v", {send_to(1, 0), recv_from(1, 0)});
  CHECK(nccl.batches.size() == 1);
  CHECK(nccl.batches[0].size() == 2);
  sequencer.wait("wait");  // the earlier post goes in the next batch
  CHECK(nccl.batches.size() == 2);
}

TEST_CASE("a collective follows compute, settles and waits for the stream") {
  FakeNccl nccl;
  NcclSequencer sequencer(nccl, 0, 10s);
  sequencer.collective("all_reduce_sum", [&] { nccl.collective(); });
  CHECK_FALSE(nccl.in_progress());
  CHECK(nccl.stream_queries == nccl.stream_polls + 1);
  CHECK(nccl.calls == std::vector<std::string>{"follow_compute", "collective"});
  REQUIRE_NOTHROW(sequencer.collective("barrier", [&] { nccl.collective(); }));
}

TEST_CASE("a call failing inside a group closes the group before the error goes on") {
  FakeNccl nccl;
  nccl.failing_call = 1;
  NcclSequencer sequencer(nccl, 0, 10s);
  for (int tag = 0; tag < 3; ++tag) sequencer.post(send_to(1, tag));
  REQUIRE_THROWS_WITH(sequencer.flush(), Catch::Contains("failing call"));
  CHECK(nccl.group_depth == 0);
  CHECK(nccl.batches.empty());  // NCCL drops a group in which a call failed
}

TEST_CASE("an NCCL error aborts once and names rank and operation, later calls throw") {
  FakeNccl nccl;
  NcclSequencer sequencer(nccl, 3, 10s);
  sequencer.post(send_to(1, 0));
  nccl.async_error = "ncclRemoteError (remote process exited)";
  REQUIRE_THROWS_WITH(
      sequencer.wait("wait"),
      Catch::Contains("rank 3: NCCL wait: ncclRemoteError (remote process exited)"));
  CHECK(nccl.aborts == 1);
  CHECK(sequencer.aborted());
  REQUIRE_THROWS_WITH(sequencer.post(send_to(1, 1)), Catch::Contains("aborted"));
  REQUIRE_THROWS_WITH(sequencer.collective("barrier", [&] { nccl.collective(); }),
                      Catch::Contains("aborted"));
  CHECK_FALSE(sequencer.close());
  CHECK(nccl.aborts == 1);
}

TEST_CASE("no progress before the timeout aborts instead of hanging") {
  SECTION("NCCL never takes the group") {
    FakeNccl nccl;
    nccl.busy_polls = FakeNccl::kForever;
    NcclSequencer sequencer(nccl, 1, 50ms);
    sequencer.post(send_to(0, 0));
    REQUIRE_THROWS_WITH(sequencer.flush(), Catch::Contains("rank 1: NCCL flush: no progress before "
                                                           "STRATA_NCCL_TIMEOUT_S"));
    CHECK(nccl.aborts == 1);
  }
  SECTION("the peer never receives") {
    FakeNccl nccl;
    nccl.stream_polls = FakeNccl::kForever;
    NcclSequencer sequencer(nccl, 1, 50ms);
    sequencer.post(send_to(0, 0));
    REQUIRE_THROWS_WITH(sequencer.wait("wait"), Catch::Contains("not done before"));
    CHECK(nccl.aborts == 1);
  }
}

TEST_CASE("close finalizes and settles, while unwinding it aborts instead") {
  SECTION("orderly") {
    FakeNccl nccl;
    NcclSequencer sequencer(nccl, 0, 10s);
    CHECK(sequencer.close());
    CHECK(nccl.calls.back() == "finalize");
    CHECK_FALSE(nccl.in_progress());
    CHECK(nccl.aborts == 0);
  }
  SECTION("unwinding: a peer may be gone and finalize would wait for it") {
    FakeNccl nccl;
    NcclSequencer sequencer(nccl, 0, 10s);
    struct CloseOnExit {
      NcclSequencer& sequencer;
      bool& closed;
      ~CloseOnExit() { closed = sequencer.close(); }
    };
    bool closed = true;
    try {
      CloseOnExit on_exit{sequencer, closed};
      throw std::runtime_error("a failing rank");
    } catch (const std::runtime_error&) {
    }
    CHECK_FALSE(closed);
    CHECK(nccl.aborts == 1);
  }
  SECTION("finalize that never settles ends in an abort, not a hang") {
    FakeNccl nccl;
    nccl.busy_polls = FakeNccl::kForever;
    NcclSequencer sequencer(nccl, 0, 50ms);
    CHECK_FALSE(sequencer.close());
    CHECK(nccl.aborts == 1);
  }
}

TEST_CASE("STRATA_NCCL_TIMEOUT_S sets the timeout, unset or invalid is 600 s") {
  ::setenv("STRATA_NCCL_TIMEOUT_S", "7", 1);
  CHECK(nccl_timeout() == 7s);
  ::setenv("STRATA_NCCL_TIMEOUT_S", "none", 1);
  CHECK(nccl_timeout() == 600s);
  ::unsetenv("STRATA_NCCL_TIMEOUT_S");
  CHECK(nccl_timeout() == 600s);
}

}  // namespace
}  // namespace strata
