// What `strata plan` needs to know of the graph for each layout: measured on a loaded
// dataset (its partitions, chunks and memory estimate), or derived from a description of
// a graph this machine does not hold, under stated assumptions (a simulated cluster).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "strata/datasets/dataset.h"
#include "strata/layers/model.h"
#include "strata/plan.h"
#include "strata/plan/time_model.h"
#include "strata/training/train_config.h"

namespace strata {

class PlanGraph {
 public:
  virtual ~PlanGraph() = default;
  virtual GraphSummary summary() const = 0;
  virtual std::int64_t nodes() const = 0;
  // The model's shape over this graph (features and classes filled in).
  virtual ModelShape shape(ModelConfig& model) const = 0;
  virtual const std::vector<PartLoad>& loads(int parts) = 0;
  // B of DESIGN.md: (vertex, remote part) pairs, for the bytes.
  virtual std::int64_t boundary_pairs(int parts) = 0;
  // The fraction of neighbour reads a forward of `chunks` chunks takes from history.
  virtual double stale_reads(int chunks) = 0;
  // The largest rank's memory in an S x G layout.
  virtual std::int64_t memory_per_rank(const TrainConfig& train, const PipelineOptions& pipeline,
                                       int stages, int parts, DType gradient_type) = 0;
};

// Whether the request's model adds a self-loop to every row (GCN's Â does): its entries.
bool adds_self_loops(const PlanRequest& request);

std::unique_ptr<PlanGraph> loaded_graph(const Dataset& data, const PlanRequest& request);
std::unique_ptr<PlanGraph> described_graph(const PlanRequest& request);

}  // namespace strata
