// Agreeing on failure: a step that may fail on some ranks (loading, partitioning) is run
// on every rank, then the ranks compare notes, so that either all go on or all stop with
// the same error. No rank is left waiting for one that gave up.
#pragma once
#include <functional>

#include "strata/comm/communicator.h"
#include "strata/core/error.h"

namespace strata {

// An error every rank of the job holds (thrown by run_agreed).
class AgreedError : public Error {
 public:
  using Error::Error;
  bool every_rank() const override { return true; }
};

// Runs step on every rank (step must not communicate). If it threw anywhere, every rank
// throws the lowest failing rank's error: same kind, message prefixed "rank R: " (in a job of more
// than one rank). Collective.
void run_agreed(Communicator& comm, const std::function<void()>& step);

}  // namespace strata
