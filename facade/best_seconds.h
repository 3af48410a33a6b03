// The best wall time of a few runs of a measurement, after one that warms caches and pages.
#pragma once
#include <algorithm>

#include "strata/core/timer.h"

namespace strata {

template <typename F>
double best_seconds(F&& run, int repeats = 5) {
  run();
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const Timer timer;
    run();
    best = std::min(best, timer.seconds());
  }
  return best;
}

}  // namespace strata
