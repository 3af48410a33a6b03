// Config::profile: every backend operation of a rank's training timed, and the epochs
// after the first (which allocates and uploads) summed, with their wall time and waits.
#pragma once
#include "roofline.h"
#include "strata/core/timer.h"
#include "strata/kernels/profiling_backend.h"
#include "strata/result.h"
#include "strata/training/rank_grid.h"
#include "strata/training/train_config.h"

namespace strata {

class EpochProfiler {
 public:
  // Floors from `roofline` (none where it has no rates).
  EpochProfiler(const Device& device, Roofline roofline);
  // The device with its backend timed.
  const Device& device() const { return device_; }
  // `next`, after noting the epoch's end.
  EpochCallback watch(const EpochCallback& next);
  // Per epoch, over the epochs after the first (or the only one).
  Profile report() const;

 private:
  void epoch_done(const EpochMetrics& m);

  Roofline roofline_;
  kernels::OpProfile live_, first_;
  std::unique_ptr<kernels::Backend> backend_;
  Device device_;
  Timer timer_;
  double first_end_s_ = 0, last_end_s_ = 0, comm_wait_s_ = 0, first_comm_wait_s_ = 0;
  int epochs_ = 0;
};

}  // namespace strata
