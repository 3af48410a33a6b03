// The pipeline memory estimate's structure: what grows with what.
#include <catch2/catch.hpp>

#include "strata/datasets/dataset.h"
#include "strata/plan/memory_estimate.h"

namespace strata {
namespace {

Dataset sparse_dataset(std::int32_t features) {
  LoadOptions options;
  options.nodes = 500;
  options.features = features;
  Dataset d = load_dataset("synthetic", options);
  d.features = FeatureMatrix(to_csr(d.features.to_dense()));
  return d;
}

ModelConfig gcn(std::int32_t in_features) {
  ModelConfig m;
  m.in_features = in_features;
  m.hidden = 16;
  m.classes = 8;
  m.num_layers = 4;
  return m;
}

TEST_CASE("a GCN first stage's buffers do not grow with the input width") {
  // Wider than hidden, layer 0 transforms first: nothing but the features themselves (and
  // W0) is input-wide. Coauthor Physics (8,415 features) was once estimated at 10x its peak.
  const StageBounds bounds{0, 2, 4};
  const MemoryEstimate narrow =
      estimate_pipeline_memory(sparse_dataset(64), gcn(64), bounds, 0, {4, false, {}});
  const MemoryEstimate wide =
      estimate_pipeline_memory(sparse_dataset(2048), gcn(2048), bounds, 0, {4, false, {}});
  CHECK(wide.activations == narrow.activations);
  CHECK(wide.parameters > narrow.parameters);  // W0 is input-wide
  CHECK(wide.features > narrow.features);
  const MemoryEstimate later =
      estimate_pipeline_memory(sparse_dataset(2048), gcn(2048), bounds, 1, {4, false, {}});
  CHECK(later.features == 0);
}

TEST_CASE("bf16 storage counts each kept aggregation at 2 bytes a value, plus a decoded slice") {
  const Dataset d = sparse_dataset(16);
  const std::int64_t n = d.adjacency.rows;
  const ModelConfig model = gcn(16);  // 16 -> 16 -> 16 -> 16 -> 8: layers 0-2 aggregate first
  ChunkPlan plan{1, false, {}};
  const MemoryEstimate fp32 = estimate_pipeline_memory(d, model, {0, 4}, 0, plan);
  plan.storage = RowCodec::kBf16;
  const MemoryEstimate bf16 = estimate_pipeline_memory(d, model, {0, 4}, 0, plan);
  const std::int64_t slice = std::min<std::int64_t>(n, 4096) * 16 * 4;
  // dY Wᵀ of layers 1-2 needs no scratch either way: over Z in fp32, over Y in bf16.
  CHECK(fp32.activations - bf16.activations == 3 * n * 16 * 2 - slice);
  plan.recompute = true;  // nothing left to store
  const MemoryEstimate both = estimate_pipeline_memory(d, model, {0, 4}, 0, plan);
  plan.storage = RowCodec::kFloat32;
  CHECK(both.activations == estimate_pipeline_memory(d, model, {0, 4}, 0, plan).activations);
}

TEST_CASE("bf16 storage keeps a later stage's history at 2 bytes a value, plus a decoded slice") {
  const Dataset d = sparse_dataset(16);
  const std::int64_t n = d.adjacency.rows;
  ModelConfig model = gcn(16);
  model.num_layers = 2;  // stage 1 is layer 1, 16 -> 8: its Z stays fp32 either way
  for (const int chunks : {1, 4}) {
    INFO(chunks << " chunks");
    ChunkPlan plan{chunks, false, {}};
    const MemoryEstimate fp32 = estimate_pipeline_memory(d, model, {0, 1, 2}, 1, plan);
    plan.storage = RowCodec::kBf16;
    const MemoryEstimate bf16 = estimate_pipeline_memory(d, model, {0, 1, 2}, 1, plan);
    const std::int64_t saved =
        chunks == 1 ? 0 : n * 16 * 2 - std::min<std::int64_t>(n, 4096) * 16 * 4;
    CHECK(fp32.activations - bf16.activations == saved);  // one chunk: no history, P as received
  }
}

TEST_CASE("bf16 storage keeps every history of a stage of several layers, and no Y before one") {
  const Dataset d = sparse_dataset(16);
  const std::int64_t n = d.adjacency.rows, row = 16 * 4;  // bytes of a 16-wide fp32 row
  const ModelConfig model = gcn(16);  // stage 1: layers 2 (16 -> 16) and 3 (16 -> 8)
  ChunkPlan plan{4, true, {}};
  const MemoryEstimate fp32 = estimate_pipeline_memory(d, model, {0, 2, 4}, 1, plan);
  plan.storage = RowCodec::kBf16;
  const MemoryEstimate bf16 = estimate_pipeline_memory(d, model, {0, 2, 4}, 1, plan);
  // Half of P2, of Z2, and of Y2 (P3, which it was) saved; layer 2's dY Wᵀ, which went over
  // its fp32 Z, needs a buffer (its Y is no more), and one decoded slice of every column.
  const std::int64_t slice = std::min<std::int64_t>(n, 4096) * row;
  CHECK(fp32.activations - bf16.activations == 3 * n * row / 2 - n * row - slice);
}

TEST_CASE("a hybrid rank's setup holds the whole Â twice, GCN's factored either way") {
  const Dataset d = sparse_dataset(16);
  const std::int64_t n = d.adjacency.rows, nnz = d.adjacency.nnz() + n;  // a self-loop each
  const PartSizes part{n / 4, 40, 2000, 30, 300};
  ChunkPlan plan{4, true, {}};
  const std::int64_t stored = estimate_hybrid_memory(d, gcn(16), {0, 4}, 0, plan, part).setup;
  plan.factored_adjacency = true;
  CHECK(estimate_hybrid_memory(d, gcn(16), {0, 4}, 0, plan, part).setup == stored);
  // Per copy: offsets, an index an entry, a scale a row and a column.
  CHECK(stored == 2 * ((n + 1) * 8 + nnz * 4 + 2 * n * 4));
}

TEST_CASE("GCN's Â formed from its degrees counts no value an entry, a scale a row and column") {
  const Dataset d = sparse_dataset(16);
  const std::int64_t n = d.adjacency.rows, nnz = d.adjacency.nnz() + n;  // a self-loop each
  ChunkPlan plan{1, false, {}};
  ModelConfig model = gcn(16);
  const MemoryEstimate stored = estimate_pipeline_memory(d, model, {0, 4}, 0, plan);
  plan.factored_adjacency = true;
  const MemoryEstimate factored = estimate_pipeline_memory(d, model, {0, 4}, 0, plan);
  // Â symmetric: the layout's own matrix only (its transpose is itself).
  CHECK(stored.layout - factored.layout == nnz * 4 - 2 * n * 4);
  CHECK(stored.activations == factored.activations);
  model.kind = ModelKind::kSage;  // a mean keeps a scale a row either way
  plan.factored_adjacency = false;
  const MemoryEstimate mean = estimate_pipeline_memory(d, model, {0, 4}, 0, plan);
  plan.factored_adjacency = true;
  CHECK(estimate_pipeline_memory(d, model, {0, 4}, 0, plan).layout == mean.layout);
}

TEST_CASE("a halo's buffers hold its sent rows, and its halo rows only when encoded") {
  const Dataset d = sparse_dataset(16);
  const auto activations = [&](std::int64_t sent, std::int64_t halo, int chunks, RowCodecs wire) {
    const PartSizes part{200, halo, 2000, sent, 300};
    return estimate_hybrid_memory(d, gcn(16), {0, 4}, 0, {chunks, false, wire}, part).activations;
  };
  const std::int64_t row = 16 * 4;  // the widest exchanged rows, float32
  const RowCodecs fp32{}, bf16{RowCodec::kBf16, RowCodec::kBf16};
  // Every chunk's exchange shares the whole graph's buffers (evaluation's).
  for (const int chunks : {1, 4}) {
    // Float32 halo rows travel in place: only the sent rows are packed.
    CHECK(activations(60, 40, chunks, fp32) - activations(30, 40, chunks, fp32) == 30 * row);
    // In bf16 the halo rows are packed too (2 bytes a value), beside the halo's own rows.
    const std::int64_t halo_rows =
        activations(30, 41, chunks, bf16) - activations(30, 40, chunks, bf16);
    const std::int64_t halo_rows_fp32 =
        activations(30, 41, chunks, fp32) - activations(30, 40, chunks, fp32);
    CHECK(halo_rows - halo_rows_fp32 == row / 2);
  }
}

TEST_CASE("a first-stage hybrid rank counts its part's features and their ids") {
  const Dataset d = sparse_dataset(16);
  const std::int64_t n = d.adjacency.rows;
  const PartSizes part{n / 4, 40, 2000, 30, 300};
  const auto dataset = [&](int stage) {
    return estimate_hybrid_memory(d, gcn(16), {0, 2, 4}, stage, {4, true, {}}, part).dataset;
  };
  const std::int64_t features = (n + 1) * 8 + d.features.nnz() * 8;  // sparse: CSR with values
  CHECK(dataset(0) - dataset(1) == features * part.owned / n + part.owned * 8);
}

TEST_CASE("a whole backward holds what one chunk holds, a chunked one adds accumulators") {
  // A whole backward (--stale-grad exact) runs after every chunk's forward, over every row
  // at once: no gradient accumulator, layer 0's input in the backward's scratch, as with
  // one chunk. A backward chunk by chunk scatters into an accumulator per later layer.
  const StageBounds bounds{0, 2, 4};
  const Dataset d = sparse_dataset(64);
  for (int stage : {0, 1}) {
    const auto activations = [&](ChunkPlan plan) {
      return estimate_pipeline_memory(d, gcn(64), bounds, stage, plan).activations;
    };
    CHECK(activations({4, true, {}}) == activations({1, true, {}}));
    CHECK(activations({4, false, {}}) > activations({4, true, {}}));
    CHECK(activations({1, true, {}}) == activations({1, false, {}}));
    // Encoded stage rows need buffers of their own; float32 rows are sent in place.
    const RowCodecs int8{RowCodec::kInt8, RowCodec::kInt8};
    CHECK(activations({4, false, int8}) > activations({4, false, {}}));
  }
}

TEST_CASE("a stage's row gradients share one buffer, a later stage holds no features") {
  // Layer 1 of a 4-stage GCN (16 -> 16), 4 chunks, a whole backward: its input P (the
  // history), Z, Y and one buffer where the received gradient, d loss / d its input and
  // everything between lie in turn (ConvStage::GradHome::kOwn): no scratch.
  const Dataset d = sparse_dataset(16);
  const std::int64_t n = d.adjacency.rows, row = 16 * 4;
  const StageBounds bounds{0, 1, 2, 3, 4};
  const MemoryEstimate later = estimate_pipeline_memory(d, gcn(16), bounds, 1, {4, true, {}});
  CHECK(later.activations == 4 * n * row);
  // Stage 0 (layer 0): P0 in the backward's scratch, where the received gradient lies too.
  const MemoryEstimate first = estimate_pipeline_memory(d, gcn(16), bounds, 0, {4, true, {}});
  CHECK(first.activations == 3 * n * row);
  // Chunk by chunk, the received and the sent gradients have buffers of their own again.
  CHECK(estimate_pipeline_memory(d, gcn(16), bounds, 1, {4, false, {}}).activations >
        later.activations + n * row);
  const std::int64_t features = (n + 1) * 8 + d.features.nnz() * 8;  // sparse: CSR with values
  CHECK(first.dataset - later.dataset == features);
  // bf16: Z stored (the stage's last layer writes dY Wᵀ over its Y) and the history P
  // stored, half of each saved, less one decoded slice: the history's, of every column
  // (wider than Z's, a chunk's).
  ChunkPlan bf16{4, true, {}};
  bf16.storage = RowCodec::kBf16;
  const std::int64_t slice = std::min<std::int64_t>(n, 4096) * row;
  CHECK(later.activations - estimate_pipeline_memory(d, gcn(16), bounds, 1, bf16).activations ==
        n * row - slice);
}

}  // namespace
}  // namespace strata
