#include <catch2/catch.hpp>

#include "strata/plan/part_load.h"
#include "strata/plan/time_model.h"

using namespace strata;

namespace {

ModelConfig config(ModelKind kind, int layers, int in = 32, int hidden = 16, int classes = 4) {
  ModelConfig c;
  c.kind = kind, c.num_layers = layers, c.in_features = in, c.hidden = hidden;
  c.classes = classes;
  return c;
}

ModelShape shape_of(const ModelConfig& c, double nodes, double entries) {
  return model_type(c.kind).shape(
      c, {static_cast<std::int64_t>(nodes), static_cast<std::int64_t>(entries)});
}

// Every kind of work at 1 ns per unit, dropout 5 ns.
KernelRates rates() {
  return {1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 5e-9};
}

PartLoad part(double rows, double interior, double sent, double halo) {
  return {{rows, rows * 10, rows * 32}, interior, sent, halo};
}

TimedLayout layout(int layers, int stages, std::vector<PartLoad> parts, int chunks, bool drop) {
  StageBounds bounds;
  for (int s = 0; s <= stages; ++s) bounds.push_back(s * layers / stages);
  return {bounds, std::move(parts), chunks, true, drop, {}};
}

double epoch(const ModelConfig& c, const TimedLayout& t, double bytes_per_s,
             CoreSharing sharing = {}) {
  const ModelShape s = shape_of(c, 4000, 40000);
  return predict_epoch_time(c, s, t, rates(), {bytes_per_s, 20e-6}, sharing).epoch;
}

}  // namespace

TEST_CASE("layer work: each product once per pass, the weight gradient in backward only") {
  // GCN 32 -> 16 -> 4 over 100 rows with 700 entries and dense features.
  const ModelConfig c = config(ModelKind::kGcn, 2);
  const ModelShape s = shape_of(c, 100, 700);
  const RowWork rows{100, 700, 100 * 32};
  const LayerWork top = layer_work(c, s, 1, rows);
  CHECK(top.forward.sparse == 700.0 * 4);  // aggregates the narrower side, 4 wide
  CHECK(top.forward.dense == 100.0 * 16 * 4);
  CHECK(top.forward.dropout == 100.0 * 16);
  CHECK(top.eval.dropout == 0);
  CHECK(top.backward.weight_grad == 100.0 * 16 * 4);
  CHECK(top.backward.dense == 100.0 * 16 * 4);  // the input's gradient
  CHECK(top.backward.sparse == 700.0 * 4);
  // Layer 0 passes no gradient to the features: dW only, no second product, no dropout.
  const LayerWork first = layer_work(c, s, 0, rows);
  CHECK(first.forward.dense == 100.0 * 32 * 16);
  CHECK(first.backward.weight_grad == 100.0 * 32 * 16);
  CHECK(first.backward.dense == 0);
  CHECK(first.backward.dropout == 0);
  // Sparse features (a tenth of the entries stored) multiply as sparse products.
  const LayerWork sparse_first = layer_work(c, s, 0, {100, 700, 320});
  CHECK(sparse_first.forward.features == 320.0 * 16);
  CHECK(sparse_first.forward.dense == 0);
  CHECK(sparse_first.backward.features_grad == 320.0 * 16);
  CHECK(sparse_first.forward.dropout == 320.0);
}

TEST_CASE("one rank: the epoch is its own work, forward, backward, evaluation and update") {
  const ModelConfig c = config(ModelKind::kGcnii, 4);
  const ModelShape s = shape_of(c, 4000, 40000);
  const TimedLayout one = layout(4, 1, {part(4000, 1, 0, 0)}, 1, false);
  const EpochTime t = predict_epoch_time(c, s, one, rates(), {1e9, 0});
  double work = 0;
  const KernelRates r = rates();
  for (int l = 0; l < 4; ++l) {
    const LayerWork w = layer_work(c, s, l, one.parts[0].work);
    for (const Work& x : {w.forward, w.backward, w.eval})
      work += (x.sparse + x.features + x.features_grad + x.dense + x.weight_grad + x.stream) *
                  r.sparse_s +
              x.dropout * r.dropout_s;
  }
  CHECK(t.compute == Approx(work));
  CHECK(t.epoch > work);                            // and the optimizer step
  CHECK(t.epoch < work + 1e-9 * 8 * 20000 + 1e-6);  // 8 floats per parameter, far fewer than 20k
}

TEST_CASE("a slower link never shortens an epoch, and the overlap hides only what it can") {
  const ModelConfig c = config(ModelKind::kGcnii, 8);
  const std::vector<PartLoad> two{part(2000, 0.6, 500, 500), part(2000, 0.6, 500, 500)};
  for (const TimedLayout& t :
       {layout(8, 1, two, 1, false), layout(8, 2, {part(4000, 1, 0, 0)}, 4, false),
        layout(8, 2, {part(4000, 1, 0, 0)}, 4, true), layout(8, 4, {part(4000, 1, 0, 0)}, 8, true)})
    for (double rate : {1e10, 1e9, 1e8, 1e7}) {
      CAPTURE(t.stages(), t.chunks, t.drop, rate);
      CHECK(epoch(c, t, rate / 2) >= epoch(c, t, rate));
      CHECK(epoch(c, t, rate) >=
            predict_epoch_time(c, shape_of(c, 4000, 40000), t, rates(), {rate, 20e-6}).compute);
    }
  TimedLayout without = layout(8, 1, two, 1, false);
  without.overlap = false;
  const TimedLayout with = layout(8, 1, two, 1, false);
  for (double rate : {1e9, 1e8, 1e7}) {
    CAPTURE(rate);
    CHECK(epoch(c, with, rate) < epoch(c, without, rate));
    // No overlap with a link so slow that every exchange outlasts all of the compute:
    // the overlap saves at most the interior rows' compute.
    const double compute =
        predict_epoch_time(c, shape_of(c, 4000, 40000), with, rates(), {rate, 0}).compute;
    CHECK(epoch(c, without, rate) - epoch(c, with, rate) <= 0.6 * compute + 1e-12);
  }
}

TEST_CASE("a chunked layout overlaps the halo in its passes over every row, not in chunks") {
  // Exact backward and evaluation run every row of a stage at once, as graph mode does.
  const ModelConfig c = config(ModelKind::kGcnii, 8);
  const std::vector<PartLoad> two{part(2000, 0.6, 500, 500), part(2000, 0.6, 500, 500)};
  for (bool drop : {false, true}) {
    TimedLayout with = layout(8, 2, two, 4, drop), without = with;
    without.overlap = false;
    CAPTURE(drop);
    CHECK(epoch(c, with, 1e8) < epoch(c, without, 1e8));
  }
}

TEST_CASE("chunks fill the pipeline: more chunks with drop approach the busiest stage") {
  const ModelConfig c = config(ModelKind::kGcnii, 8);
  const std::vector<PartLoad> whole{part(4000, 1, 0, 0)};
  const double fast = 1e12;
  const double one = epoch(c, layout(8, 2, whole, 1, true), fast);
  const double many = epoch(c, layout(8, 2, whole, 64, true), fast);
  const double busiest = predict_epoch_time(c, shape_of(c, 4000, 40000),
                                            layout(8, 2, whole, 64, true), rates(), {fast, 20e-6})
                             .compute;
  CAPTURE(one, many, busiest);
  // Fill and drain shrink with the chunks; what stays is the evaluation pass, stage by stage.
  CHECK(many - busiest < 0.5 * (one - busiest));
  CHECK(many < 1.2 * busiest);
  CHECK(epoch(c, layout(8, 2, whole, 64, false), fast) > many);
}

TEST_CASE("ranks sharing cores compute slower only while more of them work than cores") {
  CHECK(CoreSharing{}.slowdown(8) == 1.0);
  CHECK(CoreSharing{2, 1, 2}.slowdown(1) == 1.0);
  CHECK(CoreSharing{2, 1, 4}.slowdown(4) == 2.0);
  CHECK(CoreSharing{4, 2, 4}.slowdown(4) == 2.0);
  // Two of four ranks compute on two cores, the other two wait polling.
  CHECK(CoreSharing{2, 1, 4}.slowdown(2) == Approx(1 + CoreSharing::kWaitingShare));
  // The other two are a busy stage that computes half of the time.
  CHECK(CoreSharing{2, 1, 4}.slowdown(2, 2, 0.5) == Approx(1.5));
  CHECK(CoreSharing{2, 1, 4}.slowdown(2, 2, 0.0) == CoreSharing{2, 1, 4}.slowdown(2));
  const ModelConfig c = config(ModelKind::kGcnii, 8);
  const TimedLayout graph =
      layout(8, 1, {part(2000, 0.6, 500, 500), part(2000, 0.6, 500, 500)}, 1, false);
  CHECK(epoch(c, graph, 1e12, {1, 1, 2}) ==
        Approx(2 * epoch(c, graph, 1e12, {2, 1, 2})).epsilon(0.02));
}

TEST_CASE("stages waiting on the network leave the shared cores to the others") {
  // 2 x 2 hybrid, eight chunks, four ranks on two cores: compute-bound, the two stages
  // computing at once run at half speed; while halo rows travel, less than that.
  const ModelConfig c = config(ModelKind::kGcnii, 8);
  const std::vector<PartLoad> two{part(2000, 0.6, 500, 500), part(2000, 0.6, 500, 500)};
  const TimedLayout t = layout(8, 2, two, 8, true);
  const CoreSharing shared{2, 1, 4};
  const auto extra = [&](double rate) { return epoch(c, t, rate, shared) - epoch(c, t, rate); };
  const double busiest =
      predict_epoch_time(c, shape_of(c, 4000, 40000), t, rates(), {1e12, 20e-6}).compute;
  // 16 floats per halo row, 500 rows each way, about as long as the compute (3 passes x 8
  // layers of exchanges).
  const double slow = 500.0 * 16 * 4 * 3 * 8 / busiest;
  CAPTURE(busiest, slow, extra(1e12), extra(slow));
  CHECK(extra(1e12) > 0.5 * busiest);
  CHECK(extra(slow) < 0.85 * extra(1e12));
}

TEST_CASE("part loads and stale reads of a path split in two") {
  // 0 - 1 - 2 - 3, parts {0, 1} and {2, 3}: rows 1 and 2 are the boundary.
  Dataset d;
  d.adjacency.rows = d.adjacency.cols = 4;
  d.adjacency.offsets = {0, 1, 3, 5, 6};
  d.adjacency.indices = {1, 0, 2, 1, 3, 2};
  d.features = FeatureMatrix(Matrix(4, 3, 1.0f));
  const std::vector<std::int32_t> parts{0, 0, 1, 1};
  const std::vector<PartLoad> loads = part_loads(d, parts, 2, true);
  REQUIRE(loads.size() == 2);
  for (const PartLoad& l : loads) {
    CHECK(l.work.rows == 2);
    CHECK(l.work.entries == 3 + 2);  // 3 edges' ends plus two self-loops
    CHECK(l.work.feature_nonzeros == 6);
    CHECK(l.interior == 0.5);
    CHECK(l.sent == 1);
    CHECK(l.halo == 1);
  }
  // Chunk order 0 then 1: of the 6 directed reads only 1 -> 2 reads a later chunk.
  CHECK(stale_read_fraction(d.adjacency, parts) == Approx(1.0 / 6));
  CHECK(stale_read_fraction(d.adjacency, std::vector<std::int32_t>{0, 0, 0, 0}) == 0);
}

TEST_CASE("a measured all-reduce rate prices the weight sums across hosts, not within one") {
  const ModelConfig c = config(ModelKind::kGcn, 2, 512, 64);
  const ModelShape s = shape_of(c, 4000, 40000);
  const TimedLayout graph =
      layout(2, 1, {part(2000, 0.6, 500, 500), part(2000, 0.6, 500, 500)}, 1, false);
  Link link{1e9, 1e-5};
  const double at_link_rate = predict_epoch_time(c, s, graph, rates(), link).epoch;
  link.allreduce_bytes_per_s = 0.25e9;
  const double measured = predict_epoch_time(c, s, graph, rates(), link).epoch;
  // 2 ranks ring-sum 512 x 64 + 64 + 64 x 4 + 4 parameters as doubles: 8 bytes each.
  const double bytes = (512.0 * 64 + 64 + 64 * 4 + 4) * 8;
  CHECK(measured - at_link_rate == Approx(bytes / 0.25e9 - bytes / 1e9).epsilon(0.1));
  link.ranks_per_host = 2;  // both ranks on one host: the host link, not the measured rate
  CHECK(predict_epoch_time(c, s, graph, rates(), link).epoch < measured);
}

TEST_CASE("a hybrid's stages sum their weights at their groups' measured rate") {
  const ModelConfig c = config(ModelKind::kGcn, 2, 512, 64);
  const ModelShape s = shape_of(c, 4000, 40000);
  const std::vector<PartLoad> two{part(2000, 0.6, 500, 500), part(2000, 0.6, 500, 500)};
  const TimedLayout hybrid = layout(2, 2, two, 1, false);
  Link link{1e9, 1e-5};
  link.allreduce_bytes_per_s = 0.25e9;  // four ranks at once
  const double whole = predict_epoch_time(c, s, hybrid, rates(), link).epoch;
  link.group_allreduce = {{4, 0.1e9}, {2, 0.5e9}};
  CHECK(link.allreduce_rate(2) == 0.5e9);
  CHECK(link.allreduce_rate(3) == 0.25e9);
  const double grouped = predict_epoch_time(c, s, hybrid, rates(), link).epoch;
  // Stage 0 holds the 512 x 64 weight and its bias: they dominate the update.
  const double bytes = (512.0 * 64 + 64) * 8;
  CHECK(whole - grouped == Approx(bytes / 0.25e9 - bytes / 0.5e9).epsilon(0.1));
}
