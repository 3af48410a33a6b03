// Kernel benchmarks (Google Benchmark): SpMM bandwidth against a STREAM triad measured in
// the same process, on R-MAT (as generated and renumbered) and on coauthor_physics, and
// GEMM GFLOP/s at GCN layer shapes. Environment: STRATA_BENCH_NODES (default 262144),
// STRATA_BENCH_DEGREE (16), STRATA_BENCH_MIN_TIME (seconds per benchmark, 0.3),
// STRATA_DATASETS (../shared/datasets). CSV for scripts:
// bench_kernels --benchmark_format=csv. Names: spmm/<graph>/<kernel>_vs_<reference>/<width>
// (graph_rcm etc.: the graph renumbered; factored_vs_stored: Â as its degrees' scales, as
// --adjacency degrees holds it, against the same with a value stored an entry, as training
// holds it by default; rowscaled_vs_stored: GraphSAGE's mean as a scale a row, as training
// holds it, against its values stored), gemm/<shape>.
//
// SpMM bytes, two models: compulsory = CSR once (indices, offsets, values or scales) + x once +
// y once, the least any kernel moves; gather = CSR + one x row (and a factored matrix's
// column scale) per nonzero + y, what a kernel without cache reuse moves. stream_frac = compulsory
// GB/s / STREAM GB/s. SpMM counters come from the fastest iteration (the least disturbed on a
// shared machine). gather/<graph>/random_rows/<width>: the random-row-gather ceiling for that
// graph's shape.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <string>

#include "bench_util.h"
#include "strata/core/timer.h"
#include "strata/datasets/dataset.h"
#include "strata/kernels/kernels.h"

using namespace strata;

namespace {

using SpmmFn = void (*)(CsrView, ConstMatrixView, MatrixView, float);
double g_stream_gbs = 0;  // measured once in main, before any benchmark

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

double min_time() {
  return std::stod(env_or("STRATA_BENCH_MIN_TIME", "0.3"));
}

// GCN's Â factored (its degrees' scales, as --adjacency degrees holds it).
Csr factored(const Csr& adjacency) {
  return gcn_normalize(adjacency, degrees_plus_one(adjacency));
}

Csr rmat_adjacency() {
  LoadOptions options;
  options.nodes = std::stoll(env_or("STRATA_BENCH_NODES", "262144"));
  options.avg_degree = std::stod(env_or("STRATA_BENCH_DEGREE", "16"));
  options.features = 1;
  options.row_normalize = false;
  return make_rmat(options).adjacency;
}

void fill_pattern(Matrix& m) {
  for (std::int64_t i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(i % 13) * 0.1f;
}

struct Traffic {
  double compulsory, gather, flops;
};

// The CSR's arrays: 4-byte indices, 8-byte offsets, and 4-byte values or scales.
double csr_bytes(CsrView a) {
  const double nnz = static_cast<double>(a.nnz());
  double bytes = nnz * 4.0 + (a.rows + 1.0) * 8.0;
  if (a.values != nullptr) bytes += nnz * 4.0;
  if (a.row_scale != nullptr) bytes += a.rows * 4.0;
  if (a.col_scale != nullptr) bytes += a.cols * 4.0;
  return bytes;
}

Traffic spmm_traffic(CsrView a, std::int64_t w) {
  const double nnz = static_cast<double>(a.nnz()), width = static_cast<double>(w);
  const double csr = csr_bytes(a), y = a.rows * width * 4.0;
  const double gathered = nnz * (width * 4.0 + (a.col_scale != nullptr ? 4.0 : 0.0));
  return {csr + a.cols * width * 4.0 + y, csr + gathered + y, 2.0 * nnz * width};
}

// Every benchmark sets the same counters (the CSV reporter needs one set of columns).
void set_counters(benchmark::State& state, Traffic traffic, double seconds, double vs_ref) {
  const double per_s = 1.0 / seconds / 1e9;
  state.counters["GBps_compulsory"] = traffic.compulsory * per_s;
  state.counters["GBps_gather"] = traffic.gather * per_s;
  state.counters["stream_frac"] = traffic.compulsory * per_s / g_stream_gbs;
  state.counters["stream_frac_gather"] = traffic.gather * per_s / g_stream_gbs;
  state.counters["stream_GBps"] = g_stream_gbs;
  state.counters["GFLOPs"] = traffic.flops * per_s;
  state.counters["vs_ref"] = vs_ref;
}

// One SpMM (kernel, graph) and its reference, run alternately so that both see the same
// machine load; vs_ref = reference time / this time, both the fastest of their runs.
struct SpmmCase {
  const Csr* graph;
  SpmmFn fn;
  const Csr* ref_graph;
  SpmmFn ref_fn;
};

double timed_spmm(SpmmFn fn, const Csr& a, const Matrix& x, Matrix& y) {
  Timer t;
  fn(a.view(), x.view(), y.view(), 0.0f);
  return t.seconds();
}

void bench_spmm(benchmark::State& state, SpmmCase c, std::int64_t w) {
  Matrix x(c.graph->cols, w), y(c.graph->rows, w);
  fill_pattern(x);
  timed_spmm(c.fn, *c.graph, x, y);  // warm-up: page in y
  double best = 1e30, ref_best = 1e30;
  for (auto _ : state) {
    ref_best = std::min(ref_best, timed_spmm(c.ref_fn, *c.ref_graph, x, y));
    const double s = timed_spmm(c.fn, *c.graph, x, y);
    state.SetIterationTime(s);
    best = std::min(best, s);
  }
  benchmark::DoNotOptimize(y.data());
  set_counters(state, spmm_traffic(c.graph->view(), w), best, ref_best / best);
}

// The memory system's ceiling for SpMM on `graph`: as many x rows as it has nonzeros,
// picked uniformly at random. Both traffic models count nnz x rows + the row ids.
void bench_random_gather(benchmark::State& state, const Csr* graph, std::int64_t w) {
  Matrix x(graph->cols, w);
  fill_pattern(x);
  const std::vector<LocalId> rows = bench::random_rows(graph->nnz(), graph->cols, 7);
  double best = 1e30;
  float sink = 0.0f;
  for (auto _ : state) {
    Timer t;
    sink += bench::sum_rows(x.view(), rows);
    const double s = t.seconds();
    state.SetIterationTime(s);
    best = std::min(best, s);
  }
  benchmark::DoNotOptimize(sink);
  const double nnz = static_cast<double>(graph->nnz());
  const double bytes = nnz * (static_cast<double>(w) * 4.0 + 4.0);
  set_counters(state, {bytes, bytes, nnz * static_cast<double>(w)}, best, 0.0);
}

// c = op(a) b with op(a) m x k and b k x n.
void bench_gemm(benchmark::State& state, std::int64_t m, std::int64_t k, std::int64_t n,
                bool trans_a) {
  Matrix a(trans_a ? k : m, trans_a ? m : k), b(k, n), c(m, n);
  fill_pattern(a);
  fill_pattern(b);
  double best = 1e30;
  for (auto _ : state) {
    Timer t;
    kernels::gemm(trans_a, false, 1.0f, a.view(), b.view(), 0.0f, c.view());
    best = std::min(best, t.seconds());
  }
  benchmark::DoNotOptimize(c.data());
  const double bytes = 4.0 * static_cast<double>(m * k + k * n + m * n);
  set_counters(state, {bytes, bytes, 2.0 * static_cast<double>(m * n * k)}, best, 0.0);
}

void register_spmm(const std::string& name, SpmmCase c,
                   std::initializer_list<std::int64_t> widths) {
  for (const std::int64_t w : widths)
    benchmark::RegisterBenchmark(("spmm/" + name + "/" + std::to_string(w)).c_str(), bench_spmm, c,
                                 w)
        ->UseManualTime()
        ->MinTime(min_time())
        ->Unit(benchmark::kMillisecond);
}

void register_gather(const std::string& name, const Csr* graph) {
  for (const std::int64_t w : {16, 64, 256, 512})
    benchmark::RegisterBenchmark(("gather/" + name + "/random_rows/" + std::to_string(w)).c_str(),
                                 bench_random_gather, graph, w)
        ->UseManualTime()
        ->MinTime(min_time())
        ->Unit(benchmark::kMillisecond);
}

void register_gemm() {
  struct Shape {
    const char* name;
    std::int64_t m, k, n;
    bool trans_a;
  };
  for (const Shape& s : {Shape{"gcn_forward_100000x256x256", 100000, 256, 256, false},
                         Shape{"gcn_weight_grad_256x100000x256", 256, 100000, 256, true},
                         Shape{"physics_input_34493x8415x64", 34493, 8415, 64, false},
                         Shape{"physics_hidden_34493x64x64", 34493, 64, 64, false}})
    benchmark::RegisterBenchmark((std::string("gemm/") + s.name).c_str(), bench_gemm, s.m, s.k, s.n,
                                 s.trans_a)
        ->UseRealTime()
        ->MinTime(min_time())
        ->Unit(benchmark::kMillisecond);
}

std::deque<Csr> g_graphs;  // what the benchmarks point to; a deque keeps addresses stable

// On GCN's Â of `adjacency` with its values stored (as training holds it by default): the
// tiled kernel against the baseline, Â factored against stored, then the tiled kernel on
// renumbered copies (hubs first, RCM, random) against it on Â.
void register_graph(const std::string& name, const Csr& adjacency) {
  const Csr* scaled = &g_graphs.emplace_back(factored(adjacency));
  Csr stored = *scaled;
  store_values(stored);
  const Csr* base = &g_graphs.emplace_back(std::move(stored));
  register_spmm(name + "/tiled_vs_baseline", {base, kernels::spmm, base, bench::spmm_baseline},
                {16, 32, 64, 128, 256, 512});
  register_gather(name, base);
  register_spmm(name + "/factored_vs_stored", {scaled, kernels::spmm, base, kernels::spmm},
                {16, 64, 256});
  // GraphSAGE's mean: a scale a row against the same value stored an entry.
  const Csr* mean = &g_graphs.emplace_back(mean_normalize(adjacency, degrees_plus_one(adjacency)));
  Csr mean_stored = *mean;
  store_values(mean_stored);
  register_spmm(
      name + "/rowscaled_vs_stored",
      {mean, kernels::spmm, &g_graphs.emplace_back(std::move(mean_stored)), kernels::spmm},
      {16, 64, 256});
  const std::pair<std::string, bench::Order> orders[] = {
      {"degree", bench::degree_order(*base)},
      {"rcm", bench::rcm_order(*base)},
      {"random", bench::random_order(base->rows, 1)}};
  for (const auto& [order, permutation] : orders) {
    const Csr* copy =
        &g_graphs.emplace_back(permute_symmetric(*base, std::span<const LocalId>(permutation)));
    register_spmm(name + "_" + order + "/tiled_vs_" + name,
                  {copy, kernels::spmm, base, kernels::spmm}, {16, 64, 256});
  }
}

void register_physics() {
  const std::string dir = env_or("STRATA_DATASETS", "../shared/datasets") + "/coauthor_physics";
  if (!std::filesystem::is_directory(dir)) {
    std::fprintf(stderr, "coauthor_physics: skipped (%s not found)\n", dir.c_str());
    return;
  }
  LoadOptions options;
  options.row_normalize = false;
  register_graph("physics", load_dataset(dir, options).adjacency);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  g_stream_gbs = bench::stream_triad_gbs(std::size_t{1} << 25, 10);
  benchmark::AddCustomContext("stream_triad_GBps", std::to_string(g_stream_gbs));
  benchmark::AddCustomContext("omp_threads", std::to_string(omp_get_max_threads()));
  std::fprintf(stderr, "STREAM triad %.2f GB/s, %d threads\n", g_stream_gbs, omp_get_max_threads());

  register_graph("rmat", rmat_adjacency());
  register_physics();
  register_gemm();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
