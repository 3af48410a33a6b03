// The planner's view of a described graph (DescribedGraph): every part alike, its halo,
// interior and stale reads from the assumed cut fraction, its memory from the model's
// per-stage buffers with each rank holding only its part.
#include <cmath>

#include "plan_graph.h"
#include "strata/core/error.h"
#include "strata/plan/comm_model.h"
#include "strata/training/training_common.h"

namespace strata {
namespace {

class DescribedPlanGraph final : public PlanGraph {
 public:
  DescribedPlanGraph(const DescribedGraph& g, bool self_loops) : g_(g), self_loops_(self_loops) {
    STRATA_REQUIRE(g.nodes > 0 && g.avg_degree > 0 && g.features > 0 && g.classes > 1,
                   "a described graph needs --nodes, --avg-degree, --features, --classes > 0");
    STRATA_REQUIRE(g.cut_fraction >= 0 && g.cut_fraction <= 1 && g.feature_density > 0 &&
                       g.feature_density <= 1,
                   "--cut-fraction and --feature-density must lie in [0, 1]");
  }

  GraphSummary summary() const override {
    GraphSummary s;
    s.name = "described graph";
    s.vertices = g_.nodes;
    s.features = g_.features;
    s.classes = g_.classes;
    return s;
  }
  std::int64_t nodes() const override { return g_.nodes; }
  ModelShape shape(ModelConfig& m) const override {
    m.in_features = g_.features;
    m.classes = g_.classes;
    return model_type(m.kind).shape(m, {g_.nodes, entries(), density()});
  }
  const std::vector<PartLoad>& loads(int parts) override {
    const double rows = static_cast<double>(g_.nodes) / parts;
    PartLoad p;
    p.work = {rows, static_cast<double>(entries()) / parts, rows * g_.features * density()};
    p.interior = std::pow(1 - g_.cut_fraction, g_.avg_degree);
    p.sent = p.halo = parts > 1 ? halo(parts) : 0;
    loads_.assign(static_cast<std::size_t>(parts), p);
    return loads_;
  }
  std::int64_t boundary_pairs(int parts) override {
    return parts > 1 ? std::llround(halo(parts) * parts) : 0;
  }
  double stale_reads(int chunks) override { return chunks > 1 ? g_.cut_fraction / 2 : 0.0; }
  std::int64_t memory_per_rank(const TrainConfig& t, const PipelineOptions& o, int stages,
                               int parts, DType gradients) override;

 private:
  double density() const { return g_.feature_density < 0.25 ? g_.feature_density : 1.0; }
  std::int64_t entries() const {
    const double edges = static_cast<double>(g_.nodes) * g_.avg_degree;
    return std::llround(edges) + (self_loops_ ? g_.nodes : 0);
  }
  // The other parts' vertices a part's remote edges reach, drawn uniformly.
  double halo(int parts) const {
    const double n = static_cast<double>(g_.nodes), own = n / parts, others = n - own;
    const double remote_edges = own * g_.avg_degree * g_.cut_fraction;
    return others * (1 - std::exp(-remote_edges / others));
  }

  DescribedGraph g_;
  bool self_loops_;
  std::vector<PartLoad> loads_;  // every part alike: the last count asked for
};

// Per rank: its stage's buffers over its rows (model.h's stage_floats), its rows of Â and
// their transpose, its features, and four copies of its stage's parameters (value,
// gradient, Adam's two moments).
std::int64_t DescribedPlanGraph::memory_per_rank(const TrainConfig& t, const PipelineOptions& o,
                                                 int stages, int parts, DType gradients) {
  ModelConfig m = model_config_for(0, 0, t);  // shape() sets the features and classes
  const ModelShape s = shape(m);
  const StageBounds bounds = split_layers_by_cost(s.costs, stages);
  const PartLoad p = loads(parts).front();
  const bool chunked = o.chunks > 1;
  StageRows rows{std::llround(p.work.rows), std::llround(p.work.rows + p.halo), chunked,
                 !chunked && parts == 1};
  if (chunked && parts == 1) rows.columns = g_.nodes;  // every row, from history
  rows.shares = !chunked;
  rows.halo = parts > 1;
  rows.entries = std::llround(p.work.entries);
  const double graph = p.work.entries * 16 + p.work.rows * 16;
  const double features = p.work.feature_nonzeros * (density() < 1 ? 8 : 4);
  const auto shapes = parameter_shapes(m);
  std::int64_t largest = 0;
  for (int st = 0; st < stages; ++st) {
    const auto [first, last] = stage_tensor_range(m, bounds[st], bounds[st + 1]);
    double params = 0;
    for (std::size_t i = first; i < last; ++i) params += static_cast<double>(shapes[i].size());
    const double floats =
        static_cast<double>(model_type(m.kind).stage_floats(m, bounds[st], bounds[st + 1], rows));
    const double bytes = floats * 4 + graph + (st == 0 ? features : 0) +
                         params * (12 + static_cast<double>(dtype_size(gradients)));
    largest = std::max<std::int64_t>(largest, std::llround(bytes));
  }
  return largest;
}

}  // namespace

std::unique_ptr<PlanGraph> described_graph(const PlanRequest& request) {
  return std::make_unique<DescribedPlanGraph>(request.described, adds_self_loops(request));
}

}  // namespace strata
