// In-process communicator: P threads in one process share one world state. For fast
// tests of distributed code without mpirun; results match the MPI implementation
// (sums are taken in rank order, so they are deterministic).
#pragma once
#include <functional>
#include <memory>

#include "strata/comm/communicator.h"

namespace strata {

// Runs body on `ranks` threads, each with its own Communicator of that size, and joins
// them. If any body throws (or calls abort), every thread blocked in the communicator, or
// entering it later, throws too; after joining, the first error is rethrown as a
// strata::Error whose message starts with "rank R: ".
void run_in_process(int ranks, const std::function<void(Communicator&)>& body);

// A job of one rank in the calling thread (no MPI, no other threads).
std::unique_ptr<Communicator> make_solo_communicator();

}  // namespace strata
