// The `strata` binary: parses arguments into plain structs and calls one command.
// Every error ends here as one line on stderr and a non-zero exit status.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "plan_command.h"

namespace strata::cli {

void add_dataset_options(CLI::App* cmd, DatasetArgs& d) {
  cmd->option_defaults()->always_capture_default();  // --help shows every default
  cmd->add_option("--dataset", d.dataset,
                  "synthetic | rmat | OGB raw directory | FILE.strata | edge-list file");
  cmd->add_option("--split", d.load.split, "split name (default: the only or first one)");
  cmd->add_flag("--directed", d.load.directed, "keep edge directions as stored");
  cmd->add_flag("--binarize", d.load.binarize, "features x > 0 become 1");
  cmd->add_option("--row-normalize", d.load.row_normalize, "row-normalize features");
  cmd->add_option("--nodes", d.load.nodes, "synthetic: vertex count");
  cmd->add_option("--avg-degree", d.load.avg_degree, "synthetic: average degree");
  cmd->add_option("--features", d.load.features, "synthetic: feature width");
  cmd->add_option("--classes", d.load.classes, "synthetic: class count");
  cmd->add_option("--feature-signal", d.load.feature_signal,
                  "synthetic: chance of a 1 in the own class's feature columns (others: 0.08)");
}

}  // namespace strata::cli

namespace {

using strata::cli::add_dataset_options;
using strata::cli::DatasetArgs;

void add_train_options(CLI::App* cmd, strata::cli::TrainArgs& a) {
  add_dataset_options(cmd, a.data);
  auto& m = a.config.model;
  auto& o = a.config.optimizer;
  cmd->add_option("--model", m.kind, "gcn | gcnii | sage | gin | gat");
  cmd->add_option("--layers", m.layers, "graph convolutions (gcnii adds two linear layers)");
  cmd->add_option("--alpha", m.alpha, "gcnii: initial-residual weight");
  cmd->add_option("--lambda", m.lambda, "gcnii: identity-mapping strength");
  cmd->add_flag("--eps-learnable", m.eps_learnable, "gin: learn eps (from 0); otherwise eps = 0");
  cmd->add_option("--heads", m.heads, "gat: attention heads of the hidden layers (concatenated)");
  cmd->add_option("--output-heads", m.output_heads, "gat: heads of the output layer (averaged)");
  cmd->add_option("--attention-dropout", m.attention_dropout,
                  "gat: dropout of the attention weights");
  cmd->add_option("--hidden", m.hidden, "hidden width");
  cmd->add_option("--dropout", m.dropout, "dropout probability");
  cmd->add_option("--epochs", o.epochs, "training epochs (0: evaluate the initial weights)");
  cmd->add_option("--lr", o.lr, "Adam learning rate");
  cmd->add_option("--weight-decay", o.weight_decay, "L2 weight decay");
  cmd->add_option("--on-nan", o.on_nan, "NaN or inf in a step: stop | skip-step");
  cmd->add_option("--seed", a.config.seed, "seed for init, dropout and synthetic data");
  cmd->add_option("--threads", a.threads,
                  "OpenMP threads per rank (default: OMP_NUM_THREADS if set, else this rank's "
                  "share of the cores in its affinity mask)")
      ->check(CLI::Range(1, 4096))
      ->default_str("auto");
  cmd->add_option("--metrics", a.metrics_path, "write JSON Lines metrics to FILE");
  cmd->add_flag("--profile", a.config.profile.enabled,
                "time every operation against its floor on this machine's roofline (printed "
                "at the end and in the metrics file; each operation waits for the last)");
  cmd->add_option("--roofline", a.config.profile.roofline,
                  "with --profile: read the roofline's rates from FILE, or measure and write "
                  "them there");
  cmd->add_option("--load-weights", a.load_weights, "start from the weights in FILE");
  cmd->add_option("--save-weights", a.save_weights, "write the trained weights to FILE");
  auto& c = a.config.checkpoint;
  cmd->add_option("--checkpoint-dir", c.dir, "save training state into DIR (every rank sees it)");
  cmd->add_option("--checkpoint-every", c.every, "save after every N epochs (and after the last)");
  cmd->add_option("--checkpoint-keep", c.keep, "complete checkpoints kept");
  cmd->add_flag("--resume", c.resume, "continue from the newest complete checkpoint in DIR");
  cmd->add_option("--device", a.config.device.kind, "cpu | cuda (every mode)");
  cmd->add_option("--comm", a.config.device.comm,
                  "with --device cuda: nccl | mpi (staged through host memory)");
  cmd->add_option("--spmm", a.config.device.spmm,
                  "with --device cuda: deterministic | fastest (cuSPARSE's choice)");
  cmd->add_option("--mode", a.mode,
                  "local | graph | pipeline | hybrid (graph, pipeline, hybrid: run under mpirun)");
  cmd->add_option("--parts", a.config.hybrid.parts,
                  "hybrid: graph parts per stage; stages = ranks / parts");
  cmd->add_option("--shards", a.shards, "graph: per-rank shards from `strata partition --shards`");
  cmd->add_option("--imbalance", a.config.partition.imbalance, "graph: partition imbalance");
  cmd->add_flag("--overlap,!--no-overlap", a.config.halo.overlap,
                "graph, hybrid: compute the rows' own columns while the halo travels (same "
                "results); --no-overlap waits for the halo first");
  cmd->add_flag("--recompute", a.config.memory.recompute,
                "local, graph (layers after the first), pipeline with --chunks 1 (gcn, sage, gin): "
                "recompute each aggregation in the backward instead of keeping it (less memory, "
                "one sparse product more per layer)");
  cmd->add_option("--storage", a.config.memory.storage,
                  "gcn, sage, gin: keep each aggregation for the backward, and a chunked "
                  "pipeline stage's history, as fp32 | bf16 (half the bytes; the forward "
                  "multiplies the rounded rows)");
  cmd->add_option("--adjacency", a.config.memory.adjacency,
                  "gcn, gcnii on cpu: keep Â's values (values) or form each from its row's and "
                  "column's degree as it is multiplied (degrees: 4 bytes an entry less, sparse "
                  "products slower, the same results)");
  cmd->add_option("--compress", a.config.compress.forward,
                  "graph, pipeline, hybrid: halo and stage rows travel as none | bf16 | int8");
  cmd->add_option("--compress-backward", a.config.compress.backward,
                  "their gradients as none | bf16 | int8 (default: as --compress)");
  cmd->add_option("--partitioner", a.config.partition.method,
                  "graph: metis | random | range | rcm | fennel");
  auto& p = a.config.pipeline;
  cmd->add_option("--stages", a.stages,
                  "pipeline: stages (= ranks); hybrid: ranks / parts (0: from the ranks)");
  cmd->add_option("--chunks", p.chunks, "pipeline: vertex chunks per epoch");
  cmd->add_option("--chunking", p.chunking, "pipeline: metis | rcm | range");
  cmd->add_option("--layer-split", p.layer_split, "pipeline: layers per stage, e.g. 4,4,4,4");
  cmd->add_option(
      "--stale-grad", p.stale_grad,
      "pipeline: gradient along edges read from history: drop | delay | exact (backward of "
      "every row at once, after the whole forward; not overlapped)");
  cmd->add_option("--warmup", p.warmup_epochs, "pipeline: exact (one-chunk) epochs first");
  cmd->add_flag("--alternate-order", p.alternate_order, "pipeline: reverse chunks on odd epochs");
  cmd->add_option("--stale-weight", p.stale_weight,
                  "pipeline, --stale-grad delay: share of last epoch's stale gradient added");
  cmd->add_flag("--diagnose", p.diagnose,
                "pipeline: also take each step exactly and report the gradient's cosine and "
                "each layer's error against it (metrics file)");
  cmd->add_option("--smoothing", p.smoothing, "pipeline: history = s * previous + (1 - s) * fresh");
}

// Names parsed after CLI11 is done, so a bad name is a strata input error.
struct PartitionNames {
  std::string objective = "cut";
  std::string balance = "edges";
};

void add_partition_options(CLI::App* cmd, strata::cli::PartitionArgs& a, PartitionNames& n) {
  add_dataset_options(cmd, a.data);
  auto& r = a.request;
  cmd->add_option("--parts", r.parts, "number of parts");
  cmd->add_option("--method", r.options.method, "metis | random | range | rcm | fennel");
  cmd->add_option("--objective", n.objective, "METIS objective: cut | volume");
  cmd->add_option("--imbalance", r.options.imbalance, "allowed vertex imbalance");
  cmd->add_option("--balance", n.balance, "METIS balances vertices, or vertices and edges");
  cmd->add_option("--seed", r.seed, "partitioner seed");
  cmd->add_option("--in", r.in, "read a gpmetis-format partition instead of partitioning");
  cmd->add_option("--out", r.out, "write the partition in gpmetis format");
  cmd->add_option("--shards", r.shards, "write one shard file per part into DIR");
  cmd->add_option("--chunks", r.chunks, "also report K pipeline chunks of the whole graph");
  cmd->add_option("--chunking", r.chunking, "chunking: metis | rcm | range");
  cmd->add_flag("--json", a.json, "print the report as JSON");
}

void add_comm_volume_options(CLI::App* cmd, strata::cli::CommVolumeArgs& a) {
  add_dataset_options(cmd, a.data);
  auto& r = a.request;
  cmd->add_option("--parts", r.ranks, "ranks");
  cmd->add_option("--layers", r.layers, "layer counts, e.g. 2,8,16,32")->delimiter(',');
  cmd->add_option("--hidden", r.hidden, "hidden width");
  cmd->add_option("--model", r.model, "gcn | gcnii | sage | gin | gat");
  cmd->add_flag("--eps-learnable", r.eps_learnable, "gin: eps learnt (as `strata train`)");
  cmd->add_option("--heads", r.heads, "gat: heads of the hidden layers (as `strata train`)");
  cmd->add_option("--output-heads", r.output_heads, "gat: heads of the output layer");
  cmd->add_option("--stages", r.stages, "pipeline stages (0: min(parts, layers))");
  cmd->add_option("--method", r.methods, "partitioners to compare, e.g. metis,random")
      ->delimiter(',');
  cmd->add_option("--imbalance", r.partition.imbalance, "allowed vertex imbalance");
  cmd->add_option("--memory-per-rank", a.memory_per_rank,
                  "list every stages x parts layout of the ranks with its memory per rank and "
                  "choose the cheapest that fits, e.g. 8GiB");
  cmd->add_option("--chunks", r.chunks, "pipeline chunks, for the memory estimate");
  cmd->add_option("--device", r.device,
                  "cpu | cuda: gradients are all-reduced as doubles on cpu, floats on cuda");
  cmd->add_option("--compress", r.compress.forward,
                  "halo and stage rows as none | bf16 | int8 (as `strata train --compress`)");
  cmd->add_option("--compress-backward", r.compress.backward,
                  "their gradients as none | bf16 | int8 (default: as --compress)");
  cmd->add_flag("--recompute", r.memory.recompute,
                "the memory estimate with aggregations recomputed (as `strata train --recompute`)");
  cmd->add_option("--storage", r.memory.storage,
                  "the memory estimate with aggregations (and a chunked pipeline's history) "
                  "kept as fp32 | bf16 (as `strata train`)");
  cmd->add_option("--adjacency", r.memory.adjacency,
                  "the memory estimate with Â as values | degrees (as `strata train`)");
  cmd->add_flag("--json", a.json, "print exact byte counts as JSON");
}

void resolve_names(strata::cli::PartitionArgs& a, const PartitionNames& n) {
  using strata::cli::require;
  require(n.objective == "cut" || n.objective == "volume",
          "--objective must be cut or volume, got '" + n.objective + "'");
  a.request.options.min_volume = n.objective == "volume";
  require(n.balance == "edges" || n.balance == "vertices",
          "--balance must be edges or vertices, got '" + n.balance + "'");
  a.request.options.balance_edges = n.balance == "edges";
}

// With --shards the data is read from the shards, as `strata partition --shards` wrote them
// (features already binarized or normalized there): a dataset option would be ignored.
void check_shards_alone(const CLI::App& train, const strata::cli::TrainArgs& a) {
  if (a.shards.empty()) return;
  for (const char* name :
       {"--dataset", "--split", "--directed", "--binarize", "--row-normalize", "--nodes",
        "--avg-degree", "--features", "--classes", "--feature-signal"})
    strata::cli::require(train.count(name) == 0,
                         std::string(name) +
                             " does not apply with --shards: the shards hold the "
                             "dataset as written; give " +
                             name + " to `strata partition --shards` instead");
}

std::string version_text() {
  const strata::BuildInfo b = strata::build_info();
  auto yes_no = [](bool on) { return on ? "yes" : "no"; };
  return "strata " + b.version + " (" + b.build_type + ")\nCUDA backend: " + yes_no(b.cuda) +
         "\nNCCL: " + yes_no(b.nccl) + "\nMPI: " + b.mpi;
}

int report(const std::exception& e, int status) {
  std::cerr << "strata: error: " << e.what() << "\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Strata: full-graph GNN training on partitioned graphs"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", version_text, "print the version and the build's options");
  strata::cli::TrainArgs train;
  DatasetArgs info;
  strata::cli::ConvertArgs convert;
  auto* train_cmd = app.add_subcommand("train", "train a GNN on a dataset");
  add_train_options(train_cmd, train);
  auto* info_cmd = app.add_subcommand("info", "print dataset statistics");
  add_dataset_options(info_cmd, info);
  auto* convert_cmd = app.add_subcommand("convert", "write a dataset as a binary cache");
  add_dataset_options(convert_cmd, convert.data);
  convert_cmd->add_option("--out", convert.out, "output FILE.strata")->required();
  convert_cmd->add_option("--order", convert.order,
                          "vertex numbering: as-loaded | rcm (neighbours close together)");
  strata::cli::PartitionArgs partition;
  PartitionNames names;
  auto* partition_cmd = app.add_subcommand("partition", "partition a graph and report its quality");
  add_partition_options(partition_cmd, partition, names);
  strata::cli::CommVolumeArgs volume;
  auto* volume_cmd =
      app.add_subcommand("comm-volume", "predict bytes per epoch of each parallel mode");
  add_comm_volume_options(volume_cmd, volume);
  strata::cli::PlanArgs plan;
  auto* plan_cmd = strata::cli::add_plan_command(app, plan);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "strata: error: " << e.what() << "\n";
    return 2;
  }
  try {
    train.data.load.seed = train.config.seed;  // one seed drives data, init and dropout
    if (*train_cmd) {
      check_shards_alone(*train_cmd, train);
      return strata::cli::run_train(train);
    }
    if (*info_cmd) return strata::cli::run_info(info);
    if (*partition_cmd) {
      resolve_names(partition, names);
      return strata::cli::run_partition(partition);
    }
    if (*volume_cmd) return strata::cli::run_comm_volume(volume);
    if (*plan_cmd) return strata::cli::run_plan(plan);
    if (*convert_cmd) return strata::cli::run_convert(convert);
    std::cout << app.help();  // no subcommand: what a first run needs to see
    return 0;
  } catch (const strata::Error& e) {
    return report(e, e.kind() == strata::ErrorKind::kInput ? 2 : 1);
  } catch (const std::bad_alloc&) {
    std::cerr << "strata: error: " << strata::cli::kOutOfMemory << "\n";
    return 1;
  } catch (const std::exception& e) {
    return report(e, 1);
  }
}
