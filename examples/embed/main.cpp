// Embedding Strata: build a graph in memory, train it on 2 ranks in graph mode (each
// rank handing over only its own vertices) and in pipeline mode (the whole graph, one
// stage per rank), then save the weights, read them back and evaluate them.
//   ./embed            two ranks as threads of this process
//   mpirun -np 2 ./embed --mpi
#include <strata/strata.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

// Two communities on a ring: vertex v links to v +- 1 and, within its community, v +- 2.
// The features are noisy one-hot community indicators; every third vertex is labelled.
struct Graph {
  std::vector<std::int64_t> offsets{0}, neighbors, ids;
  std::vector<float> features;
  std::vector<std::int32_t> labels;
  std::vector<std::uint8_t> train, val, test;
};

constexpr std::int64_t kVertices = 400;

Graph make_graph(int rank, int ranks) {
  Graph g;
  for (std::int64_t v = rank; v < kVertices; v += ranks) {  // this rank's vertices
    const std::int32_t community = v < kVertices / 2 ? 0 : 1;
    for (std::int64_t d : {-2, -1, 1, 2}) {
      const std::int64_t u = (v + d + kVertices) % kVertices;
      if (d == 1 || d == -1 || (u < kVertices / 2) == (community == 0)) g.neighbors.push_back(u);
    }
    g.offsets.push_back(static_cast<std::int64_t>(g.neighbors.size()));
    g.ids.push_back(v);
    const float noise = static_cast<float>((v * 7919) % 100) / 250.0f;
    g.features.insert(g.features.end(), {community == 0 ? 1 - noise : noise,
                                         community == 1 ? 1 - noise : noise, 0.5f});
    g.labels.push_back(community);
    g.train.push_back(v % 3 == 0);
    g.val.push_back(v % 3 == 1);
    g.test.push_back(v % 3 == 2);
  }
  return g;
}

strata::GraphSpans spans_of(const Graph& g, bool per_rank) {
  strata::GraphSpans s;
  s.offsets = g.offsets;
  s.neighbors = g.neighbors;
  s.features = g.features;
  s.feature_count = 3;
  s.labels = g.labels;
  s.class_count = 2;
  s.train_mask = g.train;
  s.val_mask = g.val;
  s.test_mask = g.test;
  if (per_rank) s.row_ids = g.ids;
  s.vertices = kVertices;
  s.name = "two-communities";
  return s;
}

void report(strata::Workers& workers, const char* what, const strata::TrainingResult& r) {
  if (workers.rank() != 0) return;
  std::int64_t bytes = 0;
  for (const auto& [category, n] : r.comm_bytes)
    if (category != "eval") bytes += n;
  std::printf("%s: test accuracy %.3f (best val %.3f at epoch %lld), %.1f KB sent, %.2f s\n", what,
              r.test_acc, r.best_val_acc, static_cast<long long>(r.best_epoch),
              static_cast<double>(bytes) / 1e3, r.seconds);
}

void run(strata::Workers& workers) {
  strata::Config config;
  config.model.hidden = 16;
  config.optimizer.epochs = 50;
  config.seed = 1;

  config.mode = strata::Mode::kGraph;  // each rank passes only the vertices it owns
  const Graph mine = make_graph(workers.rank(), workers.size());
  strata::Trainer graph_mode(workers, config, strata::GraphInput::spans(spans_of(mine, true)));
  report(workers, "graph mode", graph_mode.train());
  graph_mode.write_weights("embed.weights");

  config.mode = strata::Mode::kPipeline;  // every rank passes the whole graph
  config.pipeline.chunks = 2;
  const Graph whole = make_graph(0, 1);
  strata::Trainer pipeline(workers, config, strata::GraphInput::spans(spans_of(whole, false)));
  report(workers, "pipeline mode", pipeline.train());

  pipeline.read_weights("embed.weights");  // the graph-mode model, evaluated by the pipeline
  const strata::TrainingResult again = pipeline.evaluate();
  if (workers.rank() == 0)
    std::printf(
        "graph-mode weights in pipeline mode: test accuracy %.3f (%zu tensors, %s %lldx%lld)\n",
        again.final_eval.test_acc, pipeline.weights().size(), pipeline.weights()[0].name.c_str(),
        static_cast<long long>(pipeline.weights()[0].rows),
        static_cast<long long>(pipeline.weights()[0].cols));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 1 && std::strcmp(argv[1], "--mpi") == 0) {
      strata::MpiRuntime mpi(&argc, &argv);
      strata::Workers workers = strata::Workers::mpi();
      try {
        run(workers);
      } catch (const strata::Error& e) {
        if (!e.every_rank()) workers.abort(e.what());  // others may wait for this rank
        throw;
      }
    } else {
      strata::Workers::run_threads(2, run);
    }
  } catch (const strata::Error& e) {
    std::fprintf(stderr, "embed: %s\n", e.what());
    return 1;
  }
  return 0;
}
