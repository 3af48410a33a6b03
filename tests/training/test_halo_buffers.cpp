// Halo exchanges that share their buffers (a stage's chunks and its whole block): each
// moves the rows it would move with buffers of its own, and one that starts while another
// sharing them is in flight is refused instead of overwriting what that one packed.
#include <catch2/catch.hpp>

#include "strata/comm/in_process_communicator.h"
#include "strata/training/halo_exchange.h"

using namespace strata;

namespace {

constexpr LocalId kOwned = 30;

// Peer q's halo rows here: `per_peer` of them, filled from q's rows first, first + 4, ...
HaloPlan plan_of(int rank, int ranks, LocalId per_peer, LocalId first) {
  HaloPlan plan;
  plan.send.resize(static_cast<std::size_t>(ranks));
  plan.recv.resize(static_cast<std::size_t>(ranks));
  LocalId next_halo = kOwned;
  for (int q = 0; q < ranks; ++q) {
    if (q == rank) continue;
    for (LocalId i = 0; i < per_peer; ++i) {
      plan.send[q].push_back(first + 4 * i);
      plan.recv[q].push_back(next_halo++);
    }
  }
  return plan;
}

// Rows whose every value names its rank and row; halo rows start at -1.
kernels::Tensor numbered_rows(const kernels::Backend& b, int rank, int ranks) {
  kernels::Tensor rows(b, kOwned + 5 * (ranks - 1), 3);
  float* v = rows.data();
  for (std::int64_t r = 0; r < rows.rows(); ++r)
    for (int c = 0; c < 3; ++c)
      v[r * 3 + c] = r < kOwned ? static_cast<float>(1000 * rank + r) : -1.0f;
  return rows;
}

std::vector<float> values(const kernels::Tensor& t) {
  return {t.data(), t.data() + t.size()};
}

}  // namespace

TEST_CASE("halo exchanges sharing buffers move what their own would, and never overlap") {
  const auto backend = kernels::make_cpu_backend();
  constexpr int kRanks = 3;
  run_in_process(kRanks, [&](Communicator& comm) {
    const int rank = comm.rank();
    const HaloPlan small = plan_of(rank, kRanks, 2, 1), large = plan_of(rank, kRanks, 5, 0);
    auto shared = std::make_shared<HaloBuffers>();
    HaloExchange a(small, comm, *backend, {}, shared), b(large, comm, *backend, {}, shared);
    HaloExchange own_a(small, comm, *backend), own_b(large, comm, *backend);
    kernels::Tensor x = numbered_rows(*backend, rank, kRanks),
                    y = numbered_rows(*backend, rank, kRanks);
    kernels::Tensor x_own = numbered_rows(*backend, rank, kRanks);
    kernels::Tensor y_own = numbered_rows(*backend, rank, kRanks);
    b.forward(y.view(), CommCategory::kHaloForward);  // the large one first: buffers grow
    a.forward(x.view(), CommCategory::kHaloForward);
    own_a.forward(x_own.view(), CommCategory::kHaloForward);
    own_b.forward(y_own.view(), CommCategory::kHaloForward);
    CHECK(values(x) == values(x_own));
    CHECK(values(y) == values(y_own));
    const int lowest_peer = rank == 0 ? 1 : 0;  // the first halo row: its row 1
    CHECK(x.data()[kOwned * 3] == static_cast<float>(1000 * lowest_peer + 1));
    a.start_forward(x.view(), CommCategory::kHaloForward);
    CHECK_THROWS_WITH(b.start_forward(y.view(), CommCategory::kHaloForward),
                      Catch::Contains("another sharing its buffers"));
    a.finish();
    b.backward(y.view(), CommCategory::kHaloBackward);  // free again
  });
}

TEST_CASE("halo rows in one run per peer travel in place, as packed rows would") {
  // The same exchanges over rows that lie in runs (received and sent where they are) and
  // over the same rows as columns 0-2 of a wider matrix (a stride: packed as before).
  const auto backend = kernels::make_cpu_backend();
  constexpr int kRanks = 3;
  run_in_process(kRanks, [&](Communicator& comm) {
    const int rank = comm.rank();
    const HaloPlan plan = plan_of(rank, kRanks, 5, 1);
    auto in_place = std::make_shared<HaloBuffers>(), packed = std::make_shared<HaloBuffers>();
    HaloExchange a(plan, comm, *backend, {}, in_place), b(plan, comm, *backend, {}, packed);
    kernels::Tensor x = numbered_rows(*backend, rank, kRanks);
    kernels::Tensor wide(*backend, x.rows(), 4);
    for (std::int64_t r = 0; r < x.rows(); ++r)
      for (int c = 0; c < 4; ++c) wide.data()[r * 4 + c] = c < 3 ? x.data()[r * 3 + c] : 7.0f;
    const MatrixView strided{wide.data(), x.rows(), 3, 4};
    const auto same = [&] {
      for (std::int64_t r = 0; r < x.rows(); ++r)
        for (int c = 0; c < 3; ++c) REQUIRE(x.data()[r * 3 + c] == strided.at(r, c));
    };
    a.forward(x.view(), CommCategory::kHaloForward);
    b.forward(strided, CommCategory::kHaloForward);
    same();
    const int lowest_peer = rank == 0 ? 1 : 0;  // the first halo row: that peer's row 1
    CHECK(x.data()[kOwned * 3] == static_cast<float>(1000 * lowest_peer + 1));
    a.backward(x.view(), CommCategory::kHaloBackward);  // each owned row sent gets its copies
    b.backward(strided, CommCategory::kHaloBackward);
    same();
    // Row 1 went to every peer and came back from each: itself and (ranks - 1) copies.
    CHECK(x.data()[1 * 3] == static_cast<float>(kRanks * (1000 * rank + 1)));
    CHECK(in_place->halo.bytes() == 0);
    CHECK(packed->halo.bytes() > 0);
    CHECK(in_place->owned.bytes() == packed->owned.bytes());
  });
}
