#include "strata/plan.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <tuple>

#include "calibration.h"
#include "conversions.h"
#include "plan_graph.h"
#include "strata/plan/comm_model.h"

namespace strata {
namespace {

struct Candidate {
  int stages = 1, parts = 1, chunks = 1;
  bool drop = false;
  std::string compress = "none";
};

bool allows(const PlanRequest& r, const char* what) {
  return std::find(r.allow.begin(), r.allow.end(), what) != r.allow.end();
}

void validate(const PlanRequest& r) {
  const ClusterSpec& c = r.cluster;
  STRATA_REQUIRE(c.ranks >= 1, "--ranks must be at least 1, got ", c.ranks);
  STRATA_REQUIRE(r.layers >= 1, "--layers must be at least 1, got ", r.layers);
  STRATA_REQUIRE(r.hidden >= 1, "--hidden must be at least 1, got ", r.hidden);
  STRATA_REQUIRE(r.stages <= r.layers, "--stages ", r.stages, " is more stages than the ", r.layers,
                 " layers: every stage needs a layer");
  STRATA_REQUIRE(r.stages <= c.ranks && (r.stages <= 0 || c.ranks % r.stages == 0), "--stages ",
                 r.stages, " does not divide --ranks ", c.ranks);
  STRATA_REQUIRE(c.ranks_per_host >= 1, "--ranks-per-host must be at least 1");
  STRATA_REQUIRE(r.tie_margin >= 0 && r.tie_margin < 1, "--tie-margin must be in [0, 1), got ",
                 r.tie_margin);
  STRATA_REQUIRE(c.link_bytes_per_s > 0 && c.link_latency_s >= 0 && c.host_link_bytes_per_s >= 0,
                 "--link must be a positive rate and --latency not negative");
  STRATA_REQUIRE(c.threads >= 1 && c.shared_cores >= 0, "--threads must be at least 1 and ",
                 "--shared-cores not negative");
  STRATA_REQUIRE(r.memory_per_rank >= 0, "--memory-per-rank must not be negative");
  for (int k : r.chunks) STRATA_REQUIRE(k >= 1, "--chunks must be at least 1, got ", k);
  for (const auto& a : r.allow)
    STRATA_REQUIRE(a == "stale" || a == "drop" || a == "lossy" || a == "none",
                   "--allow takes stale, drop, lossy or none, got '", a, "'");
  for (const auto& f : r.compress) to_row_codecs({f, f});
  parse_model_kind(r.model);
  gradient_type_on(c.device);
}

std::vector<Candidate> candidates(const PlanRequest& r) {
  const int p = r.cluster.ranks;
  std::vector<Candidate> out;
  for (const auto& format : p > 1 ? r.compress : std::vector<std::string>{"none"})
    for (int s = 1; s <= std::min(p, r.layers); ++s) {
      if (p % s != 0 || (r.stages > 0 && s != r.stages)) continue;
      if (s == 1) {
        out.push_back({1, p, 1, false, format});
        continue;
      }
      for (int k : r.chunks) {
        out.push_back({s, p / s, k, false, format});
        if (k > 1) out.push_back({s, p / s, k, true, format});
      }
    }
  return out;
}

std::string mode_of(const Candidate& c) {
  if (c.stages * c.parts == 1) return "local";
  return c.stages == 1 ? "graph" : c.parts == 1 ? "pipeline" : "hybrid";
}

// The options that load the dataset as the plan did ("" for a described graph).
std::string dataset_flags(const std::string& spec, const DatasetOptions& o, const PlanRequest& r) {
  if (r.described.nodes > 0) return "";
  std::string flags = " --dataset " + spec;
  char degree[32];
  std::snprintf(degree, sizeof degree, "%g", o.avg_degree);
  if (spec == "synthetic" || spec == "rmat")
    flags += " --nodes " + std::to_string(o.nodes) + " --avg-degree " + degree + " --features " +
             std::to_string(o.features) + " --classes " + std::to_string(o.classes);
  if (!o.split.empty()) flags += " --split " + o.split;
  if (o.directed) flags += " --directed";
  if (o.binarize) flags += " --binarize";
  if (!o.row_normalize) flags += " --row-normalize 0";
  return flags;
}

std::string command_of(const Candidate& c, const PlanRequest& r, const std::string& dataset) {
  const std::string launch =
      c.stages * c.parts == 1 ? "" : "mpirun -np " + std::to_string(r.cluster.ranks) + " ";
  std::string cmd = launch + "strata train --mode " + mode_of(c) + dataset + " --model " + r.model +
                    " --layers " + std::to_string(r.layers) + " --hidden " +
                    std::to_string(r.hidden);
  if (c.stages > 1 && c.parts > 1) cmd += " --parts " + std::to_string(c.parts);
  if (c.stages > 1) cmd += " --chunks " + std::to_string(c.chunks);
  if (c.drop) cmd += " --stale-grad drop";
  if (c.compress != "none") cmd += " --compress " + c.compress;
  if (r.cluster.device != "cpu") cmd += " --device " + r.cluster.device;
  return cmd;
}

std::string risk_of(const Candidate& c, double stale) {
  std::string risk;
  auto add = [&](const std::string& what) { risk += (risk.empty() ? "" : ", ") + what; };
  char text[32];
  std::snprintf(text, sizeof text, "stale %.0f%%", 100 * stale);
  if (c.chunks > 1) add(text);
  if (c.drop) add("drop");
  if (c.compress != "none") add(c.compress);
  return risk.empty() ? "none" : risk;
}

class Planner {
 public:
  Planner(PlanGraph& graph, const PlanRequest& r, const KernelRateSet& rates, std::string dataset)
      : graph_(graph), r_(r), rates_(rates), dataset_(std::move(dataset)) {
    model_.kind = parse_model_kind(r.model);
    model_.hidden = r.hidden;
    model_.num_layers = r.layers;
    shape_ = graph.shape(model_);
  }

  PlanLayout evaluate(const Candidate& c) {
    const StageBounds bounds = split_layers_by_cost(shape_.costs, c.stages);
    const DType gradients = gradient_type_on(r_.cluster.device);
    const WireFormat wire = wire_format_of(gradients, to_row_codecs({c.compress, c.compress}));
    const TimedLayout t{bounds, graph_.loads(c.parts), c.chunks, true, c.drop, wire};
    const EpochTime time = predict_epoch_time(model_, shape_, t, rates(), link(), sharing());
    PlanLayout l;
    l.mode = mode_of(c), l.stages = c.stages, l.parts = c.parts, l.chunks = c.chunks;
    l.stale_grad = c.drop ? "drop" : "exact", l.compress = c.compress;
    l.epoch_s = time.epoch, l.compute_s = time.compute;
    l.bytes =
        hybrid_volume(shape_, bounds, graph_.boundary_pairs(c.parts), c.parts, graph_.nodes(), wire)
            .training();
    l.memory_per_rank = memory(c, gradients);
    l.fits = r_.memory_per_rank == 0 || l.memory_per_rank <= r_.memory_per_rank;
    l.stale_reads = graph_.stale_reads(c.chunks);
    l.risk = risk_of(c, l.stale_reads);
    l.allowed = (c.chunks == 1 || allows(r_, "stale")) && (!c.drop || allows(r_, "drop")) &&
                (c.compress == "none" || allows(r_, "lossy"));
    l.command = command_of(c, r_, dataset_);
    return l;
  }

 private:
  KernelRates rates() const {
    const KernelRateSet& k = rates_;
    return {k.sparse_s,        k.features_s,
            k.features_grad_s, k.dense_s,
            k.weight_grad_s,   k.stream_s,
            k.dropout_s,       {k.pack_float32_s, k.pack_bf16_s, k.pack_int8_s},
            k.wire_byte_s};
  }
  Link link() const {
    const ClusterSpec& c = r_.cluster;
    Link link{c.link_bytes_per_s, c.link_latency_s,        c.host_link_bytes_per_s,
              c.ranks_per_host,   c.allreduce_bytes_per_s, {}};
    for (const GroupRate& g : c.group_allreduce)
      link.group_allreduce.emplace_back(g.ranks, g.bytes_per_s);
    return link;
  }
  CoreSharing sharing() const {
    return {r_.cluster.shared_cores, r_.cluster.threads, r_.cluster.ranks};
  }
  std::int64_t memory(const Candidate& c, DType gradients) const {
    TrainConfig t;
    t.model = model_.kind, t.layers = r_.layers, t.hidden = r_.hidden;
    t.compress = to_row_codecs({c.compress, c.compress});
    PipelineOptions o;
    o.chunks = c.chunks;
    o.stale_grad = c.drop ? StaleGrad::kDrop : StaleGrad::kExact;
    return graph_.memory_per_rank(t, o, c.stages, c.parts, gradients);
  }

  PlanGraph& graph_;
  const PlanRequest& r_;
  KernelRateSet rates_;
  std::string dataset_;
  ModelConfig model_;
  ModelShape shape_;
};

// How much a layout's staleness risks its accuracy, for ranking layouts the model predicts
// alike: stale reads and dropped gradients (compressed rows are not counted: their cost in
// accuracy measured within the seeds' noise, README "Compressed rows").
std::tuple<int, double> risk_order(const PlanLayout& l) {
  return {(l.stale_reads > 0) + (l.stale_grad == "drop"), l.stale_reads};
}

// Of the allowed layouts that fit and are predicted within the tie margin of `fastest`, the
// one with the fewest risks (the fastest of those).
int least_risky_tied(const PlanReport& report, int fastest, double margin) {
  int best = fastest;
  const double limit = report.layouts[static_cast<std::size_t>(fastest)].epoch_s * (1 + margin);
  for (std::size_t i = 0; i < report.layouts.size(); ++i) {
    const PlanLayout& l = report.layouts[i];
    if (l.epoch_s > limit) break;  // sorted by time
    if (l.fits && l.allowed &&
        risk_order(l) < risk_order(report.layouts[static_cast<std::size_t>(best)]))
      best = static_cast<int>(i);
  }
  return best;
}

void choose(PlanReport& report, const PlanRequest& r) {
  STRATA_REQUIRE(!report.layouts.empty(), "no layout of ", r.cluster.ranks, " ranks to rank");
  std::stable_sort(report.layouts.begin(), report.layouts.end(),
                   [](const PlanLayout& a, const PlanLayout& b) { return a.epoch_s < b.epoch_s; });
  const PlanLayout* smallest = nullptr;
  for (std::size_t i = 0; i < report.layouts.size(); ++i) {
    const PlanLayout& l = report.layouts[i];
    if (!smallest || l.memory_per_rank < smallest->memory_per_rank) smallest = &l;
    if (report.best < 0 && l.fits && l.allowed) report.best = static_cast<int>(i);
  }
  auto megabytes = [](std::int64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return std::string(text);
  };
  STRATA_REQUIRE(report.best >= 0 || smallest->fits, "no layout of ", r.cluster.ranks,
                 " ranks fits --memory-per-rank ", megabytes(r.memory_per_rank), ": the smallest, ",
                 smallest->mode, " ", smallest->stages, "x", smallest->parts, ", needs ",
                 megabytes(smallest->memory_per_rank), " per rank");
  STRATA_REQUIRE(report.best >= 0, "no layout that fits is allowed by --allow (",
                 r.allow.empty() ? "none" : r.allow.front(), "...): allow stale, drop or lossy");
  report.best = least_risky_tied(report, report.best, r.tie_margin);
}

}  // namespace

PlanReport plan_layouts(const std::string& spec, const DatasetOptions& options,
                        const PlanRequest& request) {
  validate(request);
  std::optional<Dataset> data;
  std::unique_ptr<PlanGraph> graph;
  if (request.described.nodes > 0) {
    graph = described_graph(request);
  } else {
    data = load_dataset(spec, to_load_options(options));
    graph = loaded_graph(*data, request);
  }
  PlanReport report;
  report.graph = graph->summary();
  report.rates = rates_for(request, data ? &*data : nullptr);
  Planner planner(*graph, request, report.rates, dataset_flags(spec, options, request));
  for (const Candidate& c : candidates(request)) report.layouts.push_back(planner.evaluate(c));
  choose(report, request);
  return report;
}

}  // namespace strata
