// Collective and point-to-point checks shared by the in-process and the MPI test runners.
// Each check runs on every rank of a communicator and throws on a wrong result (Catch2
// assertions are not thread-safe, so the runners turn a throw into a test failure).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/core/error.h"

namespace strata::comm_checks {

// Awkward sizes, in elements (bytes for the byte-buffer collectives).
inline constexpr std::int64_t kSizes[] = {0, 1, 31, 33, 1001};

void all_reduce(Communicator& comm);
void all_to_all_v(Communicator& comm);
void all_gather(Communicator& comm);
void broadcast(Communicator& comm);
void barrier(Communicator& comm);
void point_to_point(Communicator& comm);
// A pipeline's chunk flow (training/stage_passes.cpp): rank r receives chunk c from r - 1,
// then sends it on to r + 1 and flushes, one chunk after the other, waiting for its sends
// only at the end.
void pipelined_sends(Communicator& comm);
void split(Communicator& comm);

// One value per rank, gathered over `control` traffic.
std::vector<std::int64_t> gather_int64(Communicator& comm, std::int64_t mine);

}  // namespace strata::comm_checks

#define COMM_EXPECT(comm, cond, ...)                                                             \
  do {                                                                                           \
    if (!(cond))                                                                                 \
      throw ::strata::Error(                                                                     \
          ::strata::ErrorKind::kInternal,                                                        \
          ::strata::cat("rank ", (comm).rank(), " of ", (comm).size(), ": expected " #cond " (", \
                        __FILE__, ":", __LINE__, ") ", __VA_ARGS__));                            \
  } while (0)
