// Turning one rank's view of an epoch into the job's: sums, maxima and byte totals.
#pragma once
#include <array>
#include <cstdint>

#include "strata/comm/communicator.h"
#include "strata/training/train_config.h"

namespace strata {

// sums: this rank's {loss, correct train, correct val, correct test}; counts: its
// {train, val, test} vertices. Bytes are the counters' growth since `before`, every
// category but kControl (the reductions made here are kControl). Collective.
EpochMetrics reduce_epoch_metrics(Communicator& comm, std::int64_t epoch,
                                  const std::array<double, 4>& sums,
                                  const std::array<double, 3>& counts, double step_s, double wait_s,
                                  const ByteCounters& before);
// The same with the counters' state now given (several communicators' together).
EpochMetrics reduce_epoch_metrics(Communicator& comm, std::int64_t epoch,
                                  const std::array<double, 4>& sums,
                                  const std::array<double, 3>& counts, double step_s, double wait_s,
                                  const ByteCounters& before, const ByteCounters& now);

}  // namespace strata
