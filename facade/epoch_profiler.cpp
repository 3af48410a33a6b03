#include "epoch_profiler.h"

#include <algorithm>

namespace strata {
namespace {

// A call's working set is its compulsory traffic: it streams at the rate of a triad of
// that size (from the caches when it fits them). Gathered rows come at best from the
// nearest cache that holds the matrix they are gathered from: a triad's rate at its size,
// at most the gather rate.
double floor_seconds(const kernels::OpCost& c, const Roofline& r) {
  if (r.stream.empty()) return 0;
  const double gather_rate =
      c.gathered_from > 0
          ? std::min(r.gather_bytes_per_s, stream_rate_at(r.stream, c.gathered_from))
          : r.gather_bytes_per_s;
  return std::max({c.bytes / stream_rate_at(r.stream, c.bytes), c.gather_bytes / gather_rate,
                   c.flops / r.gemm_flops_per_s});
}

// `now` less what the first epoch had recorded (`first`, or nothing).
kernels::OpRecord since(const kernels::OpRecord& now, const kernels::OpRecord* first) {
  kernels::OpRecord r = now;
  if (first == nullptr) return r;
  r.calls -= first->calls, r.seconds -= first->seconds, r.floor_s -= first->floor_s;
  r.cost.bytes -= first->cost.bytes, r.cost.gather_bytes -= first->cost.gather_bytes;
  r.cost.flops -= first->cost.flops;
  return r;
}

}  // namespace

EpochProfiler::EpochProfiler(const Device& device, Roofline roofline)
    : roofline_(std::move(roofline)),
      backend_(kernels::make_profiling_backend(
          device.backend, live_,
          [this](const kernels::OpCost& c) { return floor_seconds(c, roofline_); })),
      device_{*backend_, device.to_data} {}

EpochCallback EpochProfiler::watch(const EpochCallback& next) {
  return [this, next](const EpochMetrics& m) {
    epoch_done(m);
    if (next) next(m);
  };
}

void EpochProfiler::epoch_done(const EpochMetrics& m) {
  last_end_s_ = timer_.seconds();
  comm_wait_s_ += m.comm_s;
  if (++epochs_ > 1) return;
  first_ = live_, first_end_s_ = last_end_s_, first_comm_wait_s_ = comm_wait_s_;
}

Profile EpochProfiler::report() const {
  // With one epoch, that epoch, from the start; with more, those after the first.
  const bool steady = epochs_ > 1;
  Profile p;
  p.epochs = steady ? epochs_ - 1 : epochs_;
  if (p.epochs == 0) return p;
  p.epoch_s = (last_end_s_ - (steady ? first_end_s_ : 0)) / p.epochs;
  p.comm_wait_s = (comm_wait_s_ - (steady ? first_comm_wait_s_ : 0)) / p.epochs;
  double in_ops = 0;
  const double e = p.epochs;
  for (const auto& [name, op] : live_) {
    const auto first = steady ? first_.find(name) : first_.end();
    const kernels::OpRecord r = since(op, first == first_.end() ? nullptr : &first->second);
    if (r.calls == 0) continue;
    p.ops.push_back({name, static_cast<double>(r.calls) / e, r.seconds / e, r.cost.bytes / e,
                     r.cost.gather_bytes / e, r.cost.flops / e, r.floor_s / e});
    in_ops += r.seconds / e;
    p.floor_s += r.floor_s / e;
  }
  std::sort(p.ops.begin(), p.ops.end(),
            [](const OpLine& a, const OpLine& b) { return a.seconds > b.seconds; });
  p.other_s = std::max(0.0, p.epoch_s - in_ops - p.comm_wait_s);
  p.roofline = roofline_;
  return p;
}

}  // namespace strata
