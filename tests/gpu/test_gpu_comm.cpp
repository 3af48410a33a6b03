// The GPU communicators pass the same checks as the MPI and in-process ones
// (tests/comm/comm_checks.cpp), through StagedCommunicator so that the checks' host
// buffers travel as device memory. Ranks are threads of this process over the in-process
// communicator. NCCL: one rank per GPU, so 1 rank on a one-GPU machine and up to 4 where
// more GPUs answer. Device staging (pinned host memory under a host communicator): 1 to 4
// ranks sharing GPU 0. Every case skips with a message when no device answers, and the
// NCCL cases also in a build without NCCL.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "comm_checks.h"
#include "skip.h"
#include "staged_communicator.h"
#include "strata/comm/device_staging_communicator.h"
#include "strata/comm/in_process_communicator.h"
#include "strata/comm/nccl_communicator.h"
#include "strata/core/device.h"

namespace strata {
namespace {

// Why the NCCL cases cannot run, or "" when they can.
std::string nccl_skip_reason(bool device, bool nccl) {
  if (!device) return "no CUDA device answers";
  if (!nccl) return "built without NCCL";
  return "";
}

// Runs check on 1 rank, then on every rank count the GPUs allow up to 4.
void run_on_gpus(void (*check)(Communicator&)) {
  const std::string why = nccl_skip_reason(gpu::available(), NcclCommunicator::built_with_nccl());
  if (!why.empty()) {
    test::skip(why);
    return;
  }
  const int most = std::min(gpu::device_count(), 4);
  for (int ranks = 1; ranks <= most; ++ranks) {
    INFO("ranks " << ranks << ", " << gpu::describe(0));
    REQUIRE_NOTHROW(run_in_process(ranks, [check](Communicator& bootstrap) {
      gpu::Context context(bootstrap.rank());
      StagedCommunicator staged(std::make_unique<NcclCommunicator>(bootstrap, context), context);
      check(staged);
    }));
  }
  if (most == 1) WARN("one GPU answers: NCCL checked with 1 rank only");
}

// Runs check with 1 to 4 ranks on GPU 0, through pinned host memory and the in-process
// communicator.
void run_staged(void (*check)(Communicator&)) {
  if (!gpu::available()) {
    test::skip("no CUDA device answers");
    return;
  }
  for (int ranks = 1; ranks <= 4; ++ranks) {
    INFO("ranks " << ranks);
    REQUIRE_NOTHROW(run_in_process(ranks, [check](Communicator& host) {
      gpu::Context context(0);
      auto owned = host.split(0, host.rank());  // the same ranks, in a communicator we own
      StagedCommunicator staged(
          std::make_unique<DeviceStagingCommunicator>(std::move(owned), context), context);
      check(staged);
    }));
  }
}

TEST_CASE("device staging: all collectives and point-to-point as the host communicator", "[gpu]") {
  for (auto* check : {comm_checks::all_reduce, comm_checks::all_to_all_v, comm_checks::all_gather,
                      comm_checks::broadcast, comm_checks::barrier, comm_checks::point_to_point,
                      comm_checks::pipelined_sends, comm_checks::split})
    run_staged(check);
}

TEST_CASE("NCCL all_reduce_sum: every dtype, awkward sizes, ring counts", "[gpu]") {
  run_on_gpus(comm_checks::all_reduce);
}
TEST_CASE("NCCL all_to_all_v", "[gpu]") {
  run_on_gpus(comm_checks::all_to_all_v);
}
TEST_CASE("NCCL all_gather", "[gpu]") {
  run_on_gpus(comm_checks::all_gather);
}
TEST_CASE("NCCL broadcast from every root", "[gpu]") {
  run_on_gpus(comm_checks::broadcast);
}
TEST_CASE("NCCL barrier", "[gpu]") {
  run_on_gpus(comm_checks::barrier);
}
TEST_CASE("NCCL point-to-point, tags out of order within a batch", "[gpu]") {
  run_on_gpus(comm_checks::point_to_point);
}
TEST_CASE("NCCL split", "[gpu]") {
  run_on_gpus(comm_checks::split);
}
TEST_CASE("NCCL pipelined sends: each chunk flushed before the next is sent", "[gpu]") {
  run_on_gpus(comm_checks::pipelined_sends);
}

TEST_CASE("the NCCL cases skip without a device and in a build without NCCL", "[gpu]") {
  CHECK(nccl_skip_reason(false, true) == "no CUDA device answers");
  CHECK(nccl_skip_reason(false, false) == "no CUDA device answers");
  CHECK(nccl_skip_reason(true, false) == "built without NCCL");
  CHECK(nccl_skip_reason(true, true).empty());
}

TEST_CASE("without NCCL or a device the NCCL communicator says which", "[gpu]") {
  if (gpu::available() && NcclCommunicator::built_with_nccl()) {
    test::skip("a CUDA device and NCCL are present: the failure case is not exercised here");
    return;
  }
  auto bootstrap = make_solo_communicator();
  const std::string expected = !gpu::built_with_cuda() ? "built without CUDA"
                               : !gpu::available()     ? "does not exist"
                                                       : "built without NCCL";
  REQUIRE_THROWS_WITH(
      [&] {
        gpu::Context context(0);
        NcclCommunicator nccl(*bootstrap, context);
      }(),
      Catch::Contains(expected));
}

}  // namespace
}  // namespace strata
