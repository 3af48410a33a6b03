// Graph mode against the one-process reference, shared by the in-process and MPI runners.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>

#include "strata/layers/model.h"
#include "strata/partition/partitioner.h"
#include "strata/partition/quality.h"
#include "strata/plan/comm_model.h"
#include "strata/shards/shard_scatter.h"
#include "strata/training/modes.h"
#include "strata/training/training_common.h"

namespace strata::testing {

// Every registered model: each mode is tested with each.
constexpr ModelKind kModels[] = {ModelKind::kGcn, ModelKind::kGcnii, ModelKind::kSage,
                                 ModelKind::kGin, ModelKind::kGat};

inline Dataset graph_mode_dataset(bool sparse) {
  LoadOptions options;
  options.nodes = 613;
  options.avg_degree = 7;
  options.features = sparse ? 96 : 12;  // 96 > hidden: transform-first layer 0
  options.classes = 4;
  options.seed = 5;
  Dataset d = load_dataset("synthetic", options);
  if (sparse) d.features = FeatureMatrix(to_csr(d.features.to_dense()));
  return d;
}

inline TrainConfig graph_mode_config(int layers) {
  TrainConfig c;
  c.layers = layers;
  c.hidden = 24;
  c.epochs = 6;
  c.dropout = 0.5f;
  c.seed = 3;
  return c;
}

inline TrainResult train_rank(Communicator& comm, const Dataset& d,
                              std::span<const std::int32_t> parts, const TrainConfig& config) {
  const Shard shard = make_shard(d, parts, comm.size(), comm.rank());
  return train_graph_parallel(comm, shard, config, nullptr);
}

// The shape of the model `config` trains on d (its learnt eps included).
inline ModelShape shape_of(const Dataset& d, const TrainConfig& config) {
  return model_shape_of(d, model_config_for(d.features.cols(), d.num_classes, config));
}

inline CommVolume predicted_volume(const Dataset& d, std::span<const std::int32_t> parts, int p,
                                   const TrainConfig& config) {
  const ModelShape shape = shape_of(d, config);
  return graph_volume(shape, measure_partition(d.adjacency, parts, p).boundary_pairs, p,
                      wire_format_of(DType::kFloat64, config.compress));
}

// Loss and accuracies equal the reference's; counted bytes equal the model's, every epoch.
// Catch2 is not thread-safe: call this from the main thread only.
inline void check_matches_reference(const TrainResult& got, const TrainResult& reference,
                                    const CommVolume& v, int p, double tolerance = 1e-5) {
  REQUIRE(got.epochs.size() == reference.epochs.size());
  for (std::size_t e = 0; e < got.epochs.size(); ++e) {
    const EpochMetrics& a = got.epochs[e];
    const EpochMetrics& b = reference.epochs[e];
    INFO("P = " << p << ", epoch " << e);
    CHECK(std::abs(a.loss - b.loss) <= tolerance * std::abs(b.loss));
    CHECK(a.train_acc == Approx(b.train_acc).margin(0.01));
    CHECK(a.val_acc == Approx(b.val_acc).margin(0.01));
    CHECK(a.comm_bytes.at("halo_fwd") == v.halo_fwd);
    CHECK(a.comm_bytes.at("halo_bwd") == v.halo_bwd);
    CHECK(a.comm_bytes.at("allreduce") == v.allreduce);
    CHECK(a.comm_bytes.at("eval") == v.eval);
    CHECK(a.comm_bytes.at("stage_fwd") == 0);
  }
}

// The same bits: every epoch's loss, accuracies and bytes, and the final weights.
inline void check_same_bits(const TrainResult& got, const TrainResult& reference) {
  REQUIRE(got.epochs.size() == reference.epochs.size());
  for (std::size_t e = 0; e < got.epochs.size(); ++e) {
    INFO("epoch " << e);
    CHECK(got.epochs[e].loss == reference.epochs[e].loss);
    CHECK(got.epochs[e].train_acc == reference.epochs[e].train_acc);
    CHECK(got.epochs[e].val_acc == reference.epochs[e].val_acc);
    CHECK(got.epochs[e].test_acc == reference.epochs[e].test_acc);
    CHECK(got.epochs[e].comm_bytes == reference.epochs[e].comm_bytes);
  }
  CHECK(got.weights == reference.weights);
}

// Every epoch's loss within 1e-5 of the reference's (exact up to the order of sums).
inline void check_same_losses(const TrainResult& got, const TrainResult& reference) {
  REQUIRE(got.epochs.size() == reference.epochs.size());
  for (std::size_t e = 0; e < got.epochs.size(); ++e) {
    INFO("epoch " << e);
    CHECK(std::abs(got.epochs[e].loss - reference.epochs[e].loss) <=
          1e-5 * std::abs(reference.epochs[e].loss));
    CHECK(got.epochs[e].val_acc == Approx(reference.epochs[e].val_acc).margin(0.01));
  }
}

// Every category's bytes, every epoch, as predicted.
inline void check_all_bytes(const TrainResult& got, const CommVolume& v) {
  REQUIRE(!got.epochs.empty());
  for (const EpochMetrics& m : got.epochs) {
    CHECK(m.comm_bytes.at("halo_fwd") == v.halo_fwd);
    CHECK(m.comm_bytes.at("halo_bwd") == v.halo_bwd);
    CHECK(m.comm_bytes.at("allreduce") == v.allreduce);
    CHECK(m.comm_bytes.at("stage_fwd") == v.stage_fwd);
    CHECK(m.comm_bytes.at("stage_bwd") == v.stage_bwd);
    CHECK(m.comm_bytes.at("eval") == v.eval);
  }
}

// A pipeline run's bytes, every epoch: the predicted stage rows and nothing else.
inline void check_stage_bytes(const TrainResult& got, const CommVolume& v) {
  for (const EpochMetrics& m : got.epochs) {
    CHECK(m.comm_bytes.at("stage_fwd") == v.stage_fwd);
    CHECK(m.comm_bytes.at("stage_bwd") == v.stage_bwd);
    CHECK(m.comm_bytes.at("eval") == v.eval);
    CHECK(m.comm_bytes.at("halo_fwd") + m.comm_bytes.at("allreduce") == 0);
  }
}

}  // namespace strata::testing
