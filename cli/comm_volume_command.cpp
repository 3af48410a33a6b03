// `strata comm-volume`: the analytic bytes per epoch of each mode, before any training.
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "commands.h"

namespace strata::cli {
namespace {

struct Row {
  std::string method, mode;
  int layers = 0, stages = 1, parts = 1;
  CommVolume volume;
};

// B per (method, parts): one partition each, however many layer counts are swept.
class BoundaryPairs {
 public:
  BoundaryPairs(const Dataset& d, const CommVolumeArgs& args) : d_(d), args_(args) {}
  std::int64_t operator()(const std::string& method, int parts) {
    if (parts == 1) return 0;
    auto [it, fresh] = cache_.try_emplace({method, parts}, 0);
    if (fresh) {
      PartitionOptions options = args_.partition;
      options.method = parse_partition_method(method);
      options.parts = parts;
      const auto assignment = partition_graph(d_.adjacency, options);
      it->second = measure_partition(d_.adjacency, assignment, parts).boundary_pairs;
    }
    return it->second;
  }

 private:
  const Dataset& d_;
  const CommVolumeArgs& args_;
  std::map<std::pair<std::string, int>, std::int64_t> cache_;
};

int hybrid_stages(const CommVolumeArgs& args) {
  const int p = args.parts;
  if (args.stages > 1 && args.stages < p && p % args.stages == 0) return args.stages;
  return p >= 4 && p % 2 == 0 ? 2 : 0;
}

std::vector<Row> rows_for(const Dataset& d, const CommVolumeArgs& args, const std::string& method,
                          int layers, BoundaryPairs& pairs) {
  const std::int64_t n = d.adjacency.rows;
  const ModelShape shape = model_shape_of(d, parse_model_kind(args.model), args.hidden, layers);
  std::vector<Row> rows;
  rows.push_back({method, "graph", layers, 1, args.parts,
                  graph_volume(shape, pairs(method, args.parts), args.parts)});
  const int s = args.stages > 0 ? args.stages : std::min(args.parts, layers);
  if (s <= layers)
    rows.push_back({method, "pipeline", layers, s, 1,
                    pipeline_volume(shape, split_layers_by_cost(shape.costs, s), n)});
  const int hs = hybrid_stages(args);
  if (hs > 1 && hs <= layers) {
    const int g = args.parts / hs;
    rows.push_back(
        {method, "hybrid", layers, hs, g,
         hybrid_volume(shape, split_layers_by_cost(shape.costs, hs), pairs(method, g), g, n)});
  }
  return rows;
}

nlohmann::json row_json(const Row& r) {
  const CommVolume& v = r.volume;
  return {{"method", r.method},       {"layers", r.layers},       {"mode", r.mode},
          {"stages", r.stages},       {"parts", r.parts},         {"halo_fwd", v.halo_fwd},
          {"halo_bwd", v.halo_bwd},   {"stage_fwd", v.stage_fwd}, {"stage_bwd", v.stage_bwd},
          {"allreduce", v.allreduce}, {"training", v.training()}, {"eval", v.eval}};
}

double mb(std::int64_t bytes) {
  return static_cast<double>(bytes) / 1e6;
}

void print_rows(const std::vector<Row>& rows) {
  std::printf("%-7s %6s %-8s %5s %10s %10s %10s %10s %10s %11s %10s\n", "method", "layers", "mode",
              "SxG", "halo_fwd", "halo_bwd", "stage_fwd", "stage_bwd", "allreduce", "training",
              "eval");
  for (const Row& r : rows) {
    const CommVolume& v = r.volume;
    std::printf("%-7s %6d %-8s %2dx%-2d %10.2f %10.2f %10.2f %10.2f %10.2f %11.2f %10.2f\n",
                r.method.c_str(), r.layers, r.mode.c_str(), r.stages, r.parts, mb(v.halo_fwd),
                mb(v.halo_bwd), mb(v.stage_fwd), mb(v.stage_bwd), mb(v.allreduce), mb(v.training()),
                mb(v.eval));
  }
}

void print_least(const std::vector<Row>& rows) {
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i, best = i;
    for (; j < rows.size() && rows[j].layers == rows[i].layers && rows[j].method == rows[i].method;
         ++j)
      if (rows[j].volume.training() < rows[best].volume.training()) best = j;
    std::printf("%s, %d layers: %s moves least (%.2f MB per epoch)\n", rows[i].method.c_str(),
                rows[i].layers, rows[best].mode.c_str(), mb(rows[best].volume.training()));
    i = j;
  }
}

}  // namespace

int run_comm_volume(const CommVolumeArgs& args) {
  STRATA_REQUIRE(args.parts >= 1, "--parts must be at least 1, got ", args.parts);
  STRATA_REQUIRE(args.hidden >= 1, "--hidden must be at least 1, got ", args.hidden);
  parse_model_kind(args.model);
  const Dataset d = load_dataset(args.data.dataset, args.data.load);
  BoundaryPairs pairs(d, args);
  std::vector<Row> rows;
  for (const auto& method : args.methods)
    for (int layers : args.layers)
      for (Row& r : rows_for(d, args, method, layers, pairs)) rows.push_back(std::move(r));
  if (args.json) {
    nlohmann::json out = {
        {"dataset", d.name},        {"nodes", d.adjacency.rows}, {"features", d.features.cols()},
        {"classes", d.num_classes}, {"hidden", args.hidden},     {"model", args.model},
        {"parts", args.parts},      {"value_bytes", 4},          {"rows", nlohmann::json::array()}};
    for (const Row& r : rows) out["rows"].push_back(row_json(r));
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf(
      "%s: %d vertices, %lld features, %d classes; %s, hidden %d, float32; MB = 1e6 bytes "
      "per epoch, summed over ranks\n",
      d.name.c_str(), d.adjacency.rows, static_cast<long long>(d.features.cols()), d.num_classes,
      args.model.c_str(), args.hidden);
  print_rows(rows);
  print_least(rows);
  return 0;
}

}  // namespace strata::cli
