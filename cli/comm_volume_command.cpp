// `strata comm-volume`: the analytic bytes per epoch of each mode, before any training.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "byte_size.h"
#include "commands.h"

namespace strata::cli {
namespace {

nlohmann::json row_json(const CommVolumeRow& r) {
  return {{"method", r.method},       {"layers", r.layers},       {"mode", r.mode},
          {"stages", r.stages},       {"parts", r.parts},         {"halo_fwd", r.halo_fwd},
          {"halo_bwd", r.halo_bwd},   {"stage_fwd", r.stage_fwd}, {"stage_bwd", r.stage_bwd},
          {"allreduce", r.allreduce}, {"training", r.training},   {"eval", r.eval}};
}

// "float32", or the formats: "int8" or "int8 forward, bf16 backward".
std::string codecs_text(const Config::Compress& c) {
  if (c.forward == c.backward) return c.forward == "none" ? "float32" : c.forward;
  return c.forward + " forward, " + c.backward + " backward";
}

double mb(std::int64_t bytes) {
  return static_cast<double>(bytes) / 1e6;
}

void print_rows(const std::vector<CommVolumeRow>& rows) {
  std::printf("%-7s %6s %-8s %5s %10s %10s %10s %10s %10s %11s %10s\n", "method", "layers", "mode",
              "SxG", "halo_fwd", "halo_bwd", "stage_fwd", "stage_bwd", "allreduce", "training",
              "eval");
  for (const CommVolumeRow& r : rows)
    std::printf("%-7s %6d %-8s %2dx%-2d %10.2f %10.2f %10.2f %10.2f %10.2f %11.2f %10.2f\n",
                r.method.c_str(), r.layers, r.mode.c_str(), r.stages, r.parts, mb(r.halo_fwd),
                mb(r.halo_bwd), mb(r.stage_fwd), mb(r.stage_bwd), mb(r.allreduce), mb(r.training),
                mb(r.eval));
}

void print_least(const std::vector<CommVolumeRow>& rows) {
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i, best = i;
    for (; j < rows.size() && rows[j].layers == rows[i].layers && rows[j].method == rows[i].method;
         ++j)
      if (rows[j].training < rows[best].training) best = j;
    std::printf("%s, %d layers: %s moves least (%.2f MB per epoch)\n", rows[i].method.c_str(),
                rows[i].layers, rows[best].mode.c_str(), mb(rows[best].training));
    i = j;
  }
}

nlohmann::json factorization_json(const Factorization& f) {
  return {{"method", f.method}, {"layers", f.layers},     {"stages", f.stages},
          {"parts", f.parts},   {"training", f.training}, {"memory_per_rank", f.memory_per_rank},
          {"fits", f.fits},     {"chosen", f.chosen}};
}

const char* mode_of(const Factorization& f) {
  return f.stages == 1 ? "graph" : f.parts == 1 ? "pipeline" : "hybrid";
}

void print_factorizations(const std::vector<Factorization>& rows, int ranks, std::int64_t limit) {
  std::printf(
      "\n%d ranks as stages x parts (hybrid mode; memory per rank: the largest rank's "
      "estimate), limit %.1f MB:\n",
      ranks, mb(limit));
  std::printf("%-7s %6s %5s %-8s %11s %14s  %s\n", "method", "layers", "SxG", "as", "training",
              "memory/rank", "fits");
  for (const Factorization& f : rows)
    std::printf("%-7s %6d %2dx%-2d %-8s %11.2f %14.1f  %s%s\n", f.method.c_str(), f.layers,
                f.stages, f.parts, mode_of(f), mb(f.training), mb(f.memory_per_rank),
                f.fits ? "yes" : "no", f.chosen ? "  <- cheapest that fits" : "");
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    bool any = false;
    for (; j < rows.size() && rows[j].layers == rows[i].layers && rows[j].method == rows[i].method;
         ++j)
      any = any || rows[j].fits;
    if (!any)
      std::printf("%s, %d layers: no layout of %d ranks fits %.1f MB per rank\n",
                  rows[i].method.c_str(), rows[i].layers, ranks, mb(limit));
    i = j;
  }
}

}  // namespace

int run_comm_volume(const CommVolumeArgs& args) {
  CommVolumeRequest r = args.request;
  if (!args.memory_per_rank.empty())
    r.memory_per_rank = parse_byte_size(args.memory_per_rank, "--memory-per-rank");
  const CommVolumeReport report = predict_comm_volume(args.data.dataset, args.data.load, r);
  const GraphSummary& g = report.graph;
  if (args.json) {
    nlohmann::json out = {{"dataset", g.name},      {"nodes", g.vertices},
                          {"features", g.features}, {"classes", g.classes},
                          {"hidden", r.hidden},     {"model", r.model},
                          {"parts", r.ranks},       {"rows", nlohmann::json::array()}};
    out["compress"] = {{"forward", report.compress.forward},
                       {"backward", report.compress.backward}};
    for (const CommVolumeRow& row : report.rows) out["rows"].push_back(row_json(row));
    if (r.memory_per_rank > 0) {
      out["memory_per_rank"] = r.memory_per_rank;
      out["factorizations"] = nlohmann::json::array();
      for (const Factorization& f : report.factorizations)
        out["factorizations"].push_back(factorization_json(f));
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf(
      "%s: %lld vertices, %lld features, %d classes; %s, hidden %d, rows %s; MB = 1e6 bytes "
      "per epoch, summed over ranks\n",
      g.name.c_str(), static_cast<long long>(g.vertices), static_cast<long long>(g.features),
      g.classes, r.model.c_str(), r.hidden, codecs_text(report.compress).c_str());
  print_rows(report.rows);
  print_least(report.rows);
  if (r.memory_per_rank > 0)
    print_factorizations(report.factorizations, r.ranks, r.memory_per_rank);
  return 0;
}

}  // namespace strata::cli
