// `strata plan`: every layout of the ranks ranked by predicted epoch time.
#include "plan_command.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "byte_size.h"

namespace strata::cli {
namespace {

nlohmann::json layout_json(const PlanLayout& l) {
  return {{"mode", l.mode},
          {"stages", l.stages},
          {"parts", l.parts},
          {"chunks", l.chunks},
          {"stale_grad", l.stale_grad},
          {"compress", l.compress},
          {"epoch_s", l.epoch_s},
          {"compute_s", l.compute_s},
          {"bytes", l.bytes},
          {"memory_per_rank", l.memory_per_rank},
          {"fits", l.fits},
          {"stale_reads", l.stale_reads},
          {"risk", l.risk},
          {"allowed", l.allowed},
          {"command", l.command}};
}

nlohmann::json report_json(const PlanReport& report, const PlanRequest& r) {
  const ClusterSpec& c = r.cluster;
  nlohmann::json out = {{"dataset", report.graph.name},
                        {"nodes", report.graph.vertices},
                        {"model", r.model},
                        {"layers", r.layers},
                        {"hidden", r.hidden},
                        {"ranks", c.ranks},
                        {"link_bytes_per_s", c.link_bytes_per_s},
                        {"latency_s", c.link_latency_s},
                        {"best", report.best},
                        {"simulated", r.described.nodes > 0},
                        {"cut_fraction", r.described.cut_fraction},
                        {"ranks_per_host", c.ranks_per_host},
                        {"host_link_bytes_per_s", c.host_link_bytes_per_s},
                        {"layouts", nlohmann::json::array()}};
  for (const auto& [name, value] : named_rates(report.rates)) out["rates"][name] = value;
  out["rates"]["source"] = report.rates.source;
  for (const PlanLayout& l : report.layouts) out["layouts"].push_back(layout_json(l));
  return out;
}

void print_table(const PlanReport& report, int top) {
  std::printf("%4s %-8s %5s %6s %-5s %-5s %8s %9s %8s %9s %9s  %s\n", "rank", "mode", "SxG",
              "chunks", "grad", "rows", "epoch_s", "compute_s", "wait_s", "MB/epoch", "MB/rank",
              "risk");
  const int shown = std::min<int>(top, static_cast<int>(report.layouts.size()));
  for (int i = 0; i < shown; ++i) {
    const PlanLayout& l = report.layouts[static_cast<std::size_t>(i)];
    std::printf("%4d %-8s %2dx%-2d %6d %-5s %-5s %8.3f %9.3f %8.3f %9.1f %9.1f  %s%s%s\n", i + 1,
                l.mode.c_str(), l.stages, l.parts, l.chunks, l.stale_grad.c_str(),
                l.compress.c_str(), l.epoch_s, l.compute_s, std::max(0.0, l.epoch_s - l.compute_s),
                static_cast<double>(l.bytes) / 1e6, static_cast<double>(l.memory_per_rank) / 1e6,
                l.risk.c_str(), l.fits ? "" : ", does not fit", l.allowed ? "" : ", not allowed");
  }
  if (shown < static_cast<int>(report.layouts.size()))
    std::printf("... %zu more (--top N, or --json for all)\n",
                report.layouts.size() - static_cast<std::size_t>(shown));
}

// ~/.cache/strata/rates-<dataset>[-<nodes>]-h<hidden>-t<threads>-cpu.txt: measured rates
// depend on the graph (its Â's locality), the width and the threads.
std::string default_calibration(const PlanArgs& a, const PlanRequest& r) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  if (r.cluster.device != "cpu") return "";  // assumed rates: nothing measured to keep
  if ((xdg == nullptr || *xdg == '\0') && (home == nullptr || *home == '\0')) return "";
  const std::filesystem::path dir = xdg != nullptr && *xdg != '\0'
                                        ? std::filesystem::path(xdg) / "strata"
                                        : std::filesystem::path(home) / ".cache" / "strata";
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  std::string name = std::filesystem::path(a.data.dataset).filename().string();
  if (a.data.dataset == "synthetic" || a.data.dataset == "rmat" || a.simulate)
    name += "-" + std::to_string(a.data.load.nodes);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-') ch = '_';
  return (dir / ("rates-" + name + "-h" + std::to_string(r.hidden) + "-t" +
                 std::to_string(r.cluster.threads) + "-" + r.cluster.device + ".txt"))
      .string();
}

}  // namespace

CLI::App* add_plan_command(CLI::App& app, PlanArgs& a) {
  auto* cmd = app.add_subcommand(
      "plan", "rank every layout of the ranks by predicted epoch time, memory and risk");
  add_dataset_options(cmd, a.data);
  PlanRequest& r = a.request;
  ClusterSpec& c = r.cluster;
  cmd->add_option("--ranks", c.ranks, "ranks of the job");
  cmd->add_option("--model", r.model, "gcn | gcnii | sage | gin");
  cmd->add_option("--layers", r.layers, "graph convolutions");
  cmd->add_option("--hidden", r.hidden, "hidden width");
  cmd->add_option("--stages", r.stages, "only layouts of this many stages (0: any)");
  cmd->add_option("--chunks", r.chunks, "pipeline chunks to consider")->delimiter(',');
  cmd->add_option("--compress", r.compress, "row formats to consider")->delimiter(',');
  cmd->add_option("--allow", r.allow,
                  "what the chosen layout may trade: stale, drop, lossy (or none)")
      ->delimiter(',');
  cmd->add_option("--tie-margin", r.tie_margin,
                  "layouts predicted within this fraction of the fastest count as tied: the "
                  "one with the least staleness is chosen (0: always the fastest)");
  cmd->add_option("--ranks-per-host", c.ranks_per_host, "ranks (GPUs) per host");
  cmd->add_option("--gpus-per-host", c.ranks_per_host, "as --ranks-per-host");
  cmd->add_option("--link", a.link, "each host's network link, e.g. 10Gbit, 25GB/s");
  cmd->add_option("--host-link", a.host_link, "between the ranks of a host (default: --link)");
  cmd->add_option("--latency", a.latency, "per message, e.g. 50us");
  cmd->add_option("--probe-network", a.probe_network,
                  "under mpirun, one rank per host: measure the network into FILE and stop");
  cmd->add_option("--network", a.network,
                  "plan with the network --probe-network measured (instead of --link, --latency)");
  cmd->add_option("--memory-per-rank", a.memory_per_rank, "e.g. 16GiB (default: no limit)");
  cmd->add_option("--device", c.device, "cpu | cuda");
  cmd->add_option("--threads", c.threads, "OpenMP threads per rank (cpu)");
  cmd->add_option("--shared-cores", c.shared_cores,
                  "every rank runs on one machine of N cores (an emulated cluster)");
  cmd->add_option("--calibration", r.calibration,
                  "kernel rates: read FILE if it exists, else measure and write it (default: "
                  "a file per dataset, width and threads under ~/.cache/strata)");
  cmd->add_flag("--recalibrate", a.recalibrate, "measure the kernel rates again");
  cmd->add_option("--partitioner", r.partition.method, "metis | random | range | rcm | fennel");
  cmd->add_option("--seed", r.seed, "partitioner seed");
  cmd->add_flag("--simulate", a.simulate,
                "plan for the graph --nodes, --avg-degree, --features, --classes describe, "
                "without making it (a model under stated assumptions)");
  cmd->add_option("--cut-fraction", a.described.cut_fraction,
                  "--simulate: fraction of each vertex's edges leaving its part");
  cmd->add_option("--feature-density", a.described.feature_density,
                  "--simulate: nonzero fraction of the features");
  cmd->add_option("--top", a.top, "layouts printed");
  cmd->add_flag("--json", a.json, "every layout as JSON");
  return cmd;
}

namespace {

// Every rank measures; rank 0 writes FILE and says what it found.
int probe(const std::string& path) {
  MpiRuntime mpi(nullptr, nullptr);
  Workers workers = Workers::mpi();
  const NetworkFacts f = probe_network(workers);
  if (workers.rank() != 0) return 0;
  write_network(path, f);
  std::printf(
      "%d ranks: %.3g Gbit/s streaming, %.3g us latency, all-reduce %.3g Gbit/s per rank; "
      "written to %s\n",
      f.ranks, f.link_bytes_per_s * 8 / 1e9, f.latency_s * 1e6, f.allreduce_bytes_per_s * 8 / 1e9,
      path.c_str());
  for (const GroupRate& g : f.group_allreduce)
    std::printf("groups of %d ranks at once: all-reduce %.3g Gbit/s per rank\n", g.ranks,
                g.bytes_per_s * 8 / 1e9);
  return 0;
}

// The request the flags describe: rates and sizes parsed, the network and the described
// graph filled in, the rates cache named.
PlanRequest request_of(const PlanArgs& args) {
  PlanRequest r = args.request;
  r.cluster.link_bytes_per_s = parse_rate(args.link, "--link");
  if (!args.host_link.empty())
    r.cluster.host_link_bytes_per_s = parse_rate(args.host_link, "--host-link");
  r.cluster.link_latency_s = parse_duration(args.latency, "--latency");
  if (!args.memory_per_rank.empty())
    r.memory_per_rank = parse_byte_size(args.memory_per_rank, "--memory-per-rank");
  if (!args.network.empty()) {
    const NetworkFacts f = read_network(args.network);
    r.cluster.link_bytes_per_s = f.link_bytes_per_s, r.cluster.link_latency_s = f.latency_s;
    r.cluster.allreduce_bytes_per_s = f.allreduce_bytes_per_s;
    r.cluster.group_allreduce = f.group_allreduce;
  }
  if (args.simulate) {
    const DatasetOptions& d = args.data.load;
    require(d.nodes > 0, "--simulate needs --nodes above 0, got " + std::to_string(d.nodes));
    r.described = args.described;
    r.described.nodes = d.nodes, r.described.avg_degree = d.avg_degree;
    r.described.features = d.features, r.described.classes = d.classes;
  }
  if (r.calibration.empty()) {
    r.calibration = default_calibration(args, r);
    r.calibration_is_cache = true;
  }
  return r;
}

void print_header(const PlanReport& report, const PlanRequest& r) {
  const KernelRateSet& k = report.rates;
  std::printf(
      "%s: %lld vertices; %s, %d layers, hidden %d; %d ranks, %.3g Gbit/s links; kernel rates "
      "(%s, ns): Â %.3g, features %.3g, their gradient %.3g per entry-column; GEMM %.3g, weight "
      "gradient %.3g per "
      "multiply-add; elementwise %.3g, dropout %.3g per value; rows packed %.3g / %.3g / %.3g "
      "per value (float32 / bf16 / int8), network stack %.3g per byte\n",
      report.graph.name.c_str(), static_cast<long long>(report.graph.vertices), r.model.c_str(),
      r.layers, r.hidden, r.cluster.ranks, r.cluster.link_bytes_per_s * 8 / 1e9, k.source.c_str(),
      k.sparse_s * 1e9, k.features_s * 1e9, k.features_grad_s * 1e9, k.dense_s * 1e9,
      k.weight_grad_s * 1e9, k.stream_s * 1e9, k.dropout_s * 1e9, k.pack_float32_s * 1e9,
      k.pack_bf16_s * 1e9, k.pack_int8_s * 1e9, k.wire_byte_s * 1e9);
  if (r.described.nodes > 0)
    std::printf(
        "a model, not a measurement: %.3g%% of each vertex's %.3g edges leave its part, their "
        "far ends uniform over the other parts; each rank holds only its part; link latency "
        "%.3g us, %d ranks per host%s\n",
        100 * r.described.cut_fraction, r.described.avg_degree, r.cluster.link_latency_s * 1e6,
        r.cluster.ranks_per_host,
        r.cluster.host_link_bytes_per_s > 0 ? "" : " (host link as --link)");
}

}  // namespace

int run_plan(const PlanArgs& args) {
  if (!args.probe_network.empty()) return probe(args.probe_network);
  const PlanRequest r = request_of(args);
  if (args.recalibrate && !r.calibration.empty()) std::filesystem::remove(r.calibration);
  Workers workers = Workers::single();
  set_rank_threads(workers, r.cluster.threads);
  const PlanReport report = plan_layouts(args.data.dataset, args.data.load, r);
  if (args.json) {
    std::printf("%s\n", report_json(report, r).dump(2).c_str());
    return 0;
  }
  print_header(report, r);
  print_table(report, args.top);
  const PlanLayout& best = report.layouts[static_cast<std::size_t>(report.best)];
  std::printf("best: %s (%.3f s per epoch predicted)\n", best.command.c_str(), best.epoch_s);
  return 0;
}

}  // namespace strata::cli
