// The shared communicator checks under real MPI; ctest runs this with mpirun -np 1, 2, 4.
// A failing check calls abort (MPI_Abort), so no rank is left hanging in a collective.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>

#include "comm_checks.h"
#include "strata/comm/mpi_communicator.h"
#include "strata/comm/mpi_session.h"

using namespace strata;

namespace {
void run_on_world(void (*check)(Communicator&)) {
  MpiCommunicator comm;
  try {
    check(comm);
  } catch (const std::exception& e) {
    comm.abort(e.what());
  }
}
}  // namespace

TEST_CASE("mpi: world size is the -np that ctest asked for") {
  const char* expected = std::getenv("STRATA_EXPECTED_NP");
  REQUIRE(expected != nullptr);
  CHECK(MpiCommunicator().size() == std::atoi(expected));
}

TEST_CASE("mpi all_reduce_sum: every dtype, awkward sizes, ring counts") {
  run_on_world(comm_checks::all_reduce);
}
TEST_CASE("mpi all_to_all_v") {
  run_on_world(comm_checks::all_to_all_v);
}
TEST_CASE("mpi all_gather") {
  run_on_world(comm_checks::all_gather);
}
TEST_CASE("mpi broadcast from every root") {
  run_on_world(comm_checks::broadcast);
}
TEST_CASE("mpi barrier") {
  run_on_world(comm_checks::barrier);
}
TEST_CASE("mpi point-to-point, tags out of order") {
  run_on_world(comm_checks::point_to_point);
}
TEST_CASE("mpi split") {
  run_on_world(comm_checks::split);
}
TEST_CASE("mpi pipelined sends, flushed chunk by chunk") {
  run_on_world(comm_checks::pipelined_sends);
}

TEST_CASE("mpi: a size mismatch in recv throws a strata::Error") {
  MpiCommunicator comm;
  if (comm.size() < 2 || comm.rank() > 1) return;
  std::vector<std::byte> data(comm.rank() == 0 ? 4 : 8);
  if (comm.rank() == 0)
    comm.send(1, 5, data, CommCategory::kEval);
  else
    CHECK_THROWS_WITH(comm.recv(0, 5, data), Catch::Contains("sent 4 bytes"));
}

int main(int argc, char** argv) {
  MpiSession session(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Catch::Session catch_session;
  if (const int rc = catch_session.applyCommandLine(argc, argv); rc != 0) return rc;
  if (rank != 0)
    catch_session.configData().outputFilename = "catch_rank" + std::to_string(rank) + ".log";
  int failed = catch_session.run();
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any_failed;
}
