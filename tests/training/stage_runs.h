// Pipeline and hybrid runs on in-process ranks, and the bytes they should count: shared by
// the pipeline, hybrid and compression tests.
#pragma once
#include <vector>

#include "graph_mode_checks.h"
#include "strata/comm/in_process_communicator.h"
#include "strata/partition/quality.h"
#include "strata/training/modes.h"

namespace strata::testing {

inline PartitionOptions metis_parts(int parts) {
  return {.method = PartitionMethod::kMetis, .parts = parts};
}

// Every rank's result of pipeline mode on `stages` ranks.
inline std::vector<TrainResult> run_pipeline(int stages, const Dataset& d, const TrainConfig& c,
                                             const PipelineOptions& o) {
  std::vector<TrainResult> results(static_cast<std::size_t>(stages));
  run_in_process(stages, [&](Communicator& comm) {
    results[comm.rank()] = train_pipeline(comm, d, c, o, nullptr);
  });
  return results;
}

// Every rank's result of hybrid mode, stages x parts ranks, METIS parts.
inline std::vector<TrainResult> run_hybrid(int stages, int parts, const Dataset& d,
                                           const TrainConfig& c, const PipelineOptions& o) {
  std::vector<TrainResult> results(static_cast<std::size_t>(stages * parts));
  run_in_process(stages * parts, [&](Communicator& comm) {
    results[comm.rank()] = train_hybrid(comm, d, c, o, metis_parts(parts), nullptr);
  });
  return results;
}

// The bytes S stages x G METIS parts count per epoch (G = 1: pipeline mode), rows in the
// config's formats, gradient sums in double (the CPU backend).
inline CommVolume stages_predicted(const Dataset& d, const TrainConfig& c, int stages, int parts) {
  const ModelShape shape = testing::shape_of(d, c);
  const std::int64_t pairs =
      parts == 1
          ? 0
          : measure_partition(d.adjacency, partition_graph(d.adjacency, metis_parts(parts)), parts)
                .boundary_pairs;
  return hybrid_volume(shape, split_layers_by_cost(shape.costs, stages), pairs, parts,
                       d.adjacency.rows, wire_format_of(DType::kFloat64, c.compress));
}

}  // namespace strata::testing
