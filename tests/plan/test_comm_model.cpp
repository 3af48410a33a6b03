#include <catch2/catch.hpp>

#include "strata/plan/comm_model.h"

using namespace strata;

namespace {

ModelShape gcn_shape(int in, int hidden, int classes, int layers, bool bias, std::int64_t nodes,
                     std::int64_t entries) {
  ModelConfig c;
  c.in_features = in;
  c.hidden = hidden;
  c.classes = classes;
  c.num_layers = layers;
  c.bias = bias;
  return model_type(ModelKind::kGcn).shape(c, {nodes, entries});
}

}  // namespace

TEST_CASE("the GCN shape: widths, exchange order and parameter count") {
  // 100 features, hidden 16, 7 classes, 3 layers: 100 -> 16 -> 16 -> 7.
  const ModelShape s = gcn_shape(100, 16, 7, 3, true, 50, 400);
  CHECK(s.widths == std::vector<int>{100, 16, 16, 7});
  CHECK(s.exchange_widths == std::vector<int>{16, 16, 7});
  CHECK(s.backward_exchange == std::vector<bool>{true, true, true});  // layer 0 transforms first
  CHECK(s.boundary_widths == std::vector<int>{16, 16, 7});
  CHECK(s.parameters == 100 * 16 + 16 + 16 * 16 + 16 + 16 * 7 + 7);
  // Narrow input: layer 0 aggregates first and, needing no input gradient, skips backward.
  const ModelShape narrow = gcn_shape(8, 16, 4, 2, false, 50, 400);
  CHECK(narrow.exchange_widths == std::vector<int>{8, 4});
  CHECK(narrow.backward_exchange == std::vector<bool>{false, true});
  CHECK(narrow.parameters == 8 * 16 + 16 * 4);
}

TEST_CASE("graph volume: B times the exchanged widths, ring all-reduce of all weights") {
  const ModelShape s = gcn_shape(8, 16, 4, 2, false, 50, 400);
  const CommVolume v = graph_volume(s, 30, 4);
  CHECK(v.halo_fwd == 30 * (8 + 4) * 4);
  CHECK(v.halo_bwd == 30 * 4 * 4);
  CHECK(v.allreduce == 2 * 3 * (8 * 16 + 16 * 4) * 8);  // double gradient sums
  CHECK(v.eval == v.halo_fwd);
  CHECK(v.stage_fwd == 0);
  CHECK(v.training() == v.halo_fwd + v.halo_bwd + v.allreduce);
  CHECK(graph_volume(s, 0, 1).training() == 0);
}

TEST_CASE("pipeline volume: N rows at each stage boundary, independent of depth") {
  const std::int64_t n = 1000;
  for (int layers : {4, 8, 16}) {
    const ModelShape s = gcn_shape(64, 32, 5, layers, true, n, 9000);
    const CommVolume v = pipeline_volume(s, split_layers_by_cost(s.costs, 4), n);
    CHECK(v.stage_fwd == 3 * n * 32 * 4);
    CHECK(v.stage_bwd == v.stage_fwd);
    CHECK(v.halo_fwd + v.allreduce == 0);
  }
  const ModelShape s = gcn_shape(64, 32, 5, 4, true, n, 9000);
  CHECK(pipeline_volume(s, StageBounds{0, 4}, n).training() == 0);  // one stage: nothing moves
  CHECK(pipeline_volume(s, StageBounds{0, 3, 4}, n).stage_fwd == n * 32 * 4);
}

TEST_CASE("hybrid volume: graph mode over G parts plus pipeline stage transfers") {
  const std::int64_t n = 1000, pairs = 120;
  const ModelShape s = gcn_shape(64, 32, 5, 8, true, n, 9000);
  const StageBounds two{0, 4, 8};
  const CommVolume h = hybrid_volume(s, two, pairs, 2, n);
  const CommVolume g = graph_volume(s, pairs, 2);
  const CommVolume p = pipeline_volume(s, two, n);
  CHECK(h.halo_fwd == g.halo_fwd);
  CHECK(h.halo_bwd == g.halo_bwd);
  CHECK(h.allreduce == g.allreduce);
  CHECK(h.stage_fwd == p.stage_fwd);
  CHECK(h.eval == g.eval + p.eval);
  // S = 1 is graph mode; G = 1 is pipeline mode.
  CHECK(hybrid_volume(s, StageBounds{0, 8}, pairs, 2, n).training() == g.training());
  CHECK(hybrid_volume(s, two, 0, 1, n).training() == p.training());
}
