// The pipeline stages on the CPU backend against the host stages, shared by the
// in-process and MPI runners: float sums there, double here, so close, not equal.
// Catch2 is not thread-safe: call these from the main thread only.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>

#include "strata/pipeline/train_config.h"

namespace strata::testing {

// Losses and accuracies within float rounding of the reference, epoch by epoch.
inline void check_close(const TrainResult& got, const TrainResult& want, double tolerance) {
  REQUIRE(got.epochs.size() == want.epochs.size());
  for (std::size_t e = 0; e < got.epochs.size(); ++e) {
    INFO("epoch " << e);
    CHECK(std::abs(got.epochs[e].loss - want.epochs[e].loss) <=
          tolerance * std::abs(want.epochs[e].loss));
    CHECK(got.epochs[e].train_acc == Approx(want.epochs[e].train_acc).margin(0.01));
    CHECK(got.epochs[e].val_acc == Approx(want.epochs[e].val_acc).margin(0.01));
  }
}

// The host run's bytes in every category; the all-reduce of float gradients is half the
// host's double one.
inline void check_bytes(const TrainResult& got, const TrainResult& host) {
  REQUIRE(got.epochs.size() == host.epochs.size());
  for (std::size_t e = 0; e < got.epochs.size(); ++e) {
    for (const char* name : {"halo_fwd", "halo_bwd", "stage_fwd", "stage_bwd", "eval"}) {
      INFO(name << ", epoch " << e);
      CHECK(got.epochs[e].comm_bytes.at(name) == host.epochs[e].comm_bytes.at(name));
    }
    CHECK(got.epochs[e].comm_bytes.at("allreduce") * 2 ==
          host.epochs[e].comm_bytes.at("allreduce"));
    CHECK(got.epochs[e].history_fraction == host.epochs[e].history_fraction);
  }
}

inline void check_weights_close(const TrainResult& got, const TrainResult& want) {
  REQUIRE(got.weights.size() == want.weights.size());
  for (std::size_t t = 0; t < got.weights.size(); ++t) {
    REQUIRE(got.weights[t].size() == want.weights[t].size());
    for (std::size_t i = 0; i < got.weights[t].size(); ++i)
      REQUIRE(got.weights[t][i] == Approx(want.weights[t][i]).margin(1e-4));
  }
}

}  // namespace strata::testing
