#include "plan_graph.h"

#include <map>

#include "conversions.h"
#include "partition_cache.h"
#include "strata/plan/comm_model.h"
#include "strata/plan/part_load.h"
#include "strata/training/modes.h"

namespace strata {
namespace {

CommVolumeRequest partition_request(const PlanRequest& r) {
  CommVolumeRequest v;
  v.partition = r.partition;
  v.seed = r.seed;
  return v;
}

class LoadedGraph final : public PlanGraph {
 public:
  LoadedGraph(const Dataset& d, const PlanRequest& r)
      : d_(d),
        method_(r.partition.method),
        self_loops_(adds_self_loops(r)),
        request_(partition_request(r)),
        parts_of_(d, request_) {}

  GraphSummary summary() const override { return summarize(d_); }
  std::int64_t nodes() const override { return d_.adjacency.rows; }
  ModelShape shape(ModelConfig& m) const override {
    m.in_features = static_cast<int>(d_.features.cols());
    m.classes = d_.num_classes;
    return model_shape_of(d_, m);
  }
  const std::vector<PartLoad>& loads(int parts) override {
    auto [it, fresh] = loads_.try_emplace(parts);
    if (fresh)
      it->second = part_loads(d_, parts_of_.get(method_, parts).part_of, parts, self_loops_);
    return it->second;
  }
  std::int64_t boundary_pairs(int parts) override {
    return parts_of_.boundary_pairs(method_, parts);
  }
  double stale_reads(int chunks) override {
    auto [it, fresh] = stale_.try_emplace(chunks, 0.0);
    if (fresh)
      it->second = stale_read_fraction(d_.adjacency, parts_of_.get("metis", chunks).part_of);
    return it->second;
  }
  std::int64_t memory_per_rank(const TrainConfig& t, const PipelineOptions& o, int stages,
                               int parts, DType gradients) override {
    const auto& part_of = parts_of_.get(method_, parts).part_of;
    std::int64_t largest = 0;
    for (int rank = 0; rank < stages * parts; ++rank)
      largest = std::max(
          largest, estimate_hybrid_rank(d_, t, o, part_of, parts, stages, rank, gradients).total());
    return largest;
  }

 private:
  const Dataset& d_;
  std::string method_;
  bool self_loops_;
  CommVolumeRequest request_;
  PartitionCache parts_of_;
  std::map<int, std::vector<PartLoad>> loads_;  // per part count: a pass over every edge
  std::map<int, double> stale_;
};

}  // namespace

bool adds_self_loops(const PlanRequest& request) {
  return has_self_loops(model_type(parse_model_kind(request.model)).propagation());
}

std::unique_ptr<PlanGraph> loaded_graph(const Dataset& data, const PlanRequest& request) {
  return std::make_unique<LoadedGraph>(data, request);
}

}  // namespace strata
