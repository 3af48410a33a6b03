#include "strata/plan/time_model.h"

#include <algorithm>
#include <utility>

#include "strata/core/error.h"

namespace strata {
namespace {

enum class Pass { kForward, kBackward, kEval };

class EpochModel {
 public:
  EpochModel(const ModelConfig& m, const ModelShape& s, const TimedLayout& t, const KernelRates& r,
             const Link& link, CoreSharing sharing)
      : m_(m), s_(s), t_(t), r_(r), link_(link), sharing_(sharing) {}

  // This model while `ranks` ranks compute at once, `others` more ranks of other stages
  // beside them computing `cpu_share` of the time.
  EpochModel busy(int ranks, int others = 0, double cpu_share = 1.0) const {
    EpochModel e = *this;
    e.slowdown_ = sharing_.slowdown(ranks, others, cpu_share);
    return e;
  }

  // The CPU seconds of stage_run, without the time its halo rows travel.
  double stage_cpu(int stage, Pass pass, double share) const {
    EpochModel e = *this;
    e.cpu_only_ = true;
    return e.stage_run(stage, pass, share);
  }

  // One stage's layers over a share of every part's rows (1 / chunks, or all of them),
  // with the rows it takes from and hands to its neighbour stages packed and unpacked.
  double stage_run(int stage, Pass pass, double share) const {
    double total = 0;
    if (stage > 0) total += stage_rows_cpu(stage - 1, pass, share);
    if (stage + 1 < t_.stages()) total += stage_rows_cpu(stage, pass, share);
    for (int l = t_.bounds[stage]; l < t_.bounds[stage + 1]; ++l) {
      double slowest = 0;
      for (const PartLoad& part : t_.parts)
        slowest = std::max(slowest, layer_time(l, pass, part, share));
      total += slowest;
    }
    return total;
  }

  // Rows of stage's last layer handed on (forward) or their gradient handed back.
  double stage_transfer(int stage, Pass pass, double share) const {
    const auto [rows, width] = hand_over(stage, share);
    // Part p of stage s is rank s G + p: the next stage's part is G ranks on.
    const double g = static_cast<double>(t_.parts.size());
    const double across = g >= link_.ranks_per_host ? 1.0 : g / link_.ranks_per_host;
    return link_.seconds(rows * static_cast<double>(row_codec_bytes(codec_of(pass), width)),
                         across);
  }

  // The CPU time of one end of the hand-over between stages s and s + 1.
  double stage_rows_cpu(int stage, Pass pass, double share) const {
    const auto [rows, width] = hand_over(stage, share);
    return rows_cpu(rows, width, codec_of(pass));
  }

  double compute(int stage, Pass pass, const PartLoad& part) const {
    double total = 0;
    for (int l = t_.bounds[stage]; l < t_.bounds[stage + 1]; ++l)
      total += seconds(work(l, pass, part.work));
    return total;
  }

  double update(int stage) const {
    const auto [first, last] = stage_tensor_range(m_, t_.bounds[stage], t_.bounds[stage + 1]);
    double values = 0;
    const auto shapes = parameter_shapes(m_);
    for (std::size_t i = first; i < last; ++i) values += static_cast<double>(shapes[i].size());
    const double g = static_cast<double>(t_.parts.size());
    const double across = g > link_.ranks_per_host ? 1.0 : 0.0;
    const double sent = g > 1 ? 2 * (g - 1) / g * values * t_.wire.gradient_bytes : 0;
    const double rate = link_.allreduce_rate(static_cast<int>(g));
    const bool measured = across > 0 && rate > 0;
    const double ring = g <= 1 ? 0
                        : measured
                            ? sent / rate
                            : link_.seconds(sent, across) + (2 * (g - 1) - 1) * link_.latency_s;
    return ring + seconds(optimizer_work(values)) + slowdown_ * 2 * sent * r_.wire_byte_s;
  }

 private:
  Work work(int l, Pass pass, const RowWork& rows) const {
    const LayerWork w = layer_work(m_, s_, l, rows);
    return pass == Pass::kForward ? w.forward : pass == Pass::kBackward ? w.backward : w.eval;
  }
  double seconds(const Work& w) const {
    return slowdown_ *
           (w.sparse * r_.sparse_s + w.features * r_.features_s +
            w.features_grad * r_.features_grad_s + w.dense * r_.dense_s +
            w.weight_grad * r_.weight_grad_s + w.stream * r_.stream_s + w.dropout * r_.dropout_s);
  }

  // The largest part's rows between stages s and s + 1, and their width.
  std::pair<double, int> hand_over(int stage, double share) const {
    double rows = 0;
    for (const PartLoad& part : t_.parts) rows = std::max(rows, part.work.rows * share);
    return {rows, s_.boundary_widths[t_.bounds[stage + 1] - 1]};
  }

  // Whether layer l exchanges halo rows in this pass.
  bool exchanges(int l, Pass pass) const {
    return t_.parts.size() > 1 && (pass != Pass::kBackward || s_.backward_exchange[l]);
  }

  RowCodec codec_of(Pass pass) const {
    return pass == Pass::kBackward ? t_.wire.rows.backward : t_.wire.rows.forward;
  }

  // Packing `rows` rows of `width` values (encoding or decoding them: half of both) and
  // moving their bytes through the network stack.
  double rows_cpu(double rows, int width, RowCodec codec) const {
    const double values = rows * width;
    const double bytes = rows * static_cast<double>(row_codec_bytes(codec, width));
    return slowdown_ *
           (values * r_.pack_s[static_cast<std::size_t>(codec)] / 2 + bytes * r_.wire_byte_s);
  }

  // The CPU a rank spends on its halo rows, out and in.
  double halo_cpu(int l, Pass pass, const PartLoad& part, double share) const {
    if (!exchanges(l, pass)) return 0;
    return rows_cpu((part.sent + part.halo) * share, s_.exchange_widths[l], codec_of(pass));
  }

  // A halo exchange of layer l's rows: the host's link carries what it sends and what it
  // receives at once, each direction at the link's rate.
  double halo_time(int l, Pass pass, const PartLoad& part, double share) const {
    if (!exchanges(l, pass) || cpu_only_) return 0;
    const double rows = std::max(part.sent, part.halo) * share;
    // A stage's G parts are consecutive ranks: the peers on the host take the host link.
    const double g = static_cast<double>(t_.parts.size());
    const double across = (g - std::min<double>(link_.ranks_per_host, g)) / (g - 1);
    const double bytes =
        rows * static_cast<double>(row_codec_bytes(codec_of(pass), s_.exchange_widths[l]));
    return link_.seconds(bytes, across);
  }

  // With the interior overlap the interior rows compute while the halo travels.
  double layer_time(int l, Pass pass, const PartLoad& part, double share) const {
    const double c = seconds(work(l, pass, part.work.scaled(share)));
    const double x = halo_time(l, pass, part, share), cpu = halo_cpu(l, pass, part, share);
    if (!t_.overlap || share < 1) return c + cpu + x;
    return std::max(c * part.interior, x) + c * (1 - part.interior) + cpu;
  }

  const ModelConfig& m_;
  const ModelShape& s_;
  const TimedLayout& t_;
  const KernelRates& r_;
  const Link& link_;
  CoreSharing sharing_;
  double slowdown_ = 1.0;
  bool cpu_only_ = false;
};

// One pass's seconds per stage (per chunk where chunked) and per hand-over between stages
// s and s + 1 (or back).
struct PassCosts {
  std::vector<double> run, hand_over;
};

PassCosts pass_costs_at(const EpochModel& e, const TimedLayout& t, Pass pass, int chunks) {
  PassCosts c;
  for (int s = 0; s < t.stages(); ++s) {
    c.run.push_back(e.stage_run(s, pass, 1.0 / chunks));
    if (s + 1 < t.stages()) c.hand_over.push_back(e.stage_transfer(s, pass, 1.0 / chunks));
  }
  return c;
}

// A stage's parts compute in step (they wait for each other's halo rows); the other busy
// stages' ranks use the CPU for the share of the pipeline's cycle they are not waiting
// on the network, found by iterating from "always".
PassCosts pass_costs(const EpochModel& all, const TimedLayout& t, Pass pass, int chunks,
                     int busy_stages) {
  const int g = static_cast<int>(t.parts.size()), others = (busy_stages - 1) * g;
  const auto longest = [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
  };
  double cpu_share = 1.0;
  PassCosts c = pass_costs_at(all.busy(g, others, cpu_share), t, pass, chunks);
  for (int i = 0; i < 4 && others > 0; ++i) {
    const EpochModel e = all.busy(g, others, cpu_share);
    double cpu = 0;
    for (int s = 0; s < t.stages(); ++s) cpu += e.stage_cpu(s, pass, 1.0 / chunks);
    const double cycle = std::max(longest(c.run), longest(c.hand_over));
    cpu_share = std::min(1.0, cpu / t.stages() / cycle);
    c = pass_costs_at(all.busy(g, others, cpu_share), t, pass, chunks);
  }
  return c;
}

// When each stage and each link between stages (one per direction) is next free.
class Timeline {
 public:
  explicit Timeline(int stages) : stage_(stages, 0.0), ahead_(stages, 0.0), back_(stages, 0.0) {}

  // Stage s runs for `seconds` once it is free and its input is `ready`; returns the end.
  double run(int s, double ready, double seconds) {
    return stage_[s] = std::max(stage_[s], ready) + seconds;
  }
  // Rows sent at `sent` over the link s -> s + 1 (or back) arrive at the returned time.
  double ahead(int s, double sent, double seconds) {
    return ahead_[s] = std::max(ahead_[s], sent) + seconds;
  }
  double back(int s, double sent, double seconds) {
    return back_[s] = std::max(back_[s], sent) + seconds;
  }
  double end() const { return *std::max_element(stage_.begin(), stage_.end()); }

 private:
  std::vector<double> stage_, ahead_, back_;
};

void forward(Timeline& t, const PassCosts& c, int chunks) {
  const int stages = static_cast<int>(c.run.size());
  for (int k = 0; k < chunks; ++k) {
    double ready = 0;
    for (int s = 0; s < stages; ++s) {
      const double done = t.run(s, ready, c.run[s]);
      if (s + 1 < stages) ready = t.ahead(s, done, c.hand_over[s]);
    }
  }
}

void backward(Timeline& t, const PassCosts& c, int chunks) {
  const int stages = static_cast<int>(c.run.size());
  for (int k = 0; k < chunks; ++k) {
    double ready = 0;
    for (int s = stages - 1; s >= 0; --s) {
      const double done = t.run(s, ready, c.run[s]);
      if (s > 0) ready = t.back(s - 1, done, c.hand_over[s - 1]);
    }
  }
}

// Epochs one after another on every stage: chunks forward, the backward (chunk by chunk,
// or every row stage after stage), the update, the evaluation pass (stage after stage).
// A stage starts its next epoch as soon as it is done, so the later stages' evaluation
// runs beside the earlier stages' next forward. The third epoch's length is the
// steady state's.
double steady_epoch(const EpochModel& e, const TimedLayout& t) {
  const int stages = t.stages(), k = t.chunks, busy = std::min(stages, k);
  const PassCosts fwd = pass_costs(e, t, Pass::kForward, k, busy);
  const PassCosts bwd =
      t.drop ? pass_costs(e, t, Pass::kBackward, k, busy) : pass_costs(e, t, Pass::kBackward, 1, 1);
  const PassCosts eval = pass_costs(e, t, Pass::kEval, 1, 1);
  const EpochModel everyone = e.busy(stages * static_cast<int>(t.parts.size()));
  std::vector<double> update;
  for (int s = 0; s < stages; ++s) update.push_back(everyone.update(s));
  Timeline line(stages);
  std::vector<double> ends;
  for (int epoch = 0; epoch < 3; ++epoch) {
    forward(line, fwd, k);
    backward(line, bwd, t.drop ? k : 1);
    for (int s = 0; s < stages; ++s) line.run(s, 0.0, update[s]);
    forward(line, eval, 1);
    ends.push_back(line.end());
  }
  return ends[2] - ends[1];
}

double busiest_rank(const EpochModel& all, const TimedLayout& t) {
  const EpochModel e = all.busy(t.stages() * static_cast<int>(t.parts.size()));
  double busiest = 0;
  for (int s = 0; s < t.stages(); ++s)
    for (const PartLoad& part : t.parts)
      busiest = std::max(busiest, e.compute(s, Pass::kForward, part) +
                                      e.compute(s, Pass::kBackward, part) +
                                      e.compute(s, Pass::kEval, part));
  return busiest;
}

}  // namespace

double CoreSharing::slowdown(int busy_ranks, int others, double cpu_share) const {
  if (cores <= 0) return 1.0;
  const double waiting = std::max(0, ranks - busy_ranks - others) * kWaitingShare;
  const double busy = busy_ranks + others * std::max(cpu_share, kWaitingShare);
  return std::max(1.0, (busy + waiting) * threads / cores);
}

double Link::allreduce_rate(int ranks) const {
  for (const auto& [group, rate] : group_allreduce)
    if (group == ranks) return rate;
  return allreduce_bytes_per_s;
}

double Link::seconds(double bytes, double across) const {
  const double host = host_bytes_per_s > 0 ? host_bytes_per_s : bytes_per_s;
  return std::max(bytes * across / bytes_per_s, bytes * (1 - across) / host) + latency_s;
}

EpochTime predict_epoch_time(const ModelConfig& model, const ModelShape& shape,
                             const TimedLayout& layout, const KernelRates& rates, const Link& link,
                             CoreSharing sharing) {
  STRATA_CHECK(layout.stages() >= 1 && !layout.parts.empty() && layout.chunks >= 1, "a layout of ",
               layout.stages(), " stages, ", layout.parts.size(), " parts, ", layout.chunks,
               " chunks");
  const EpochModel e(model, shape, layout, rates, link, sharing);
  return {steady_epoch(e, layout), busiest_rank(e, layout)};
}

}  // namespace strata
