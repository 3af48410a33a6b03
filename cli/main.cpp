// The `strata` binary: parses arguments into plain structs and calls one command.
// Every error ends here as one line on stderr and a non-zero exit status.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "commands.h"

namespace {

using strata::cli::DatasetArgs;

void add_dataset_options(CLI::App* cmd, DatasetArgs& d) {
  cmd->add_option("--dataset", d.dataset,
                  "synthetic | rmat | OGB raw directory | FILE.strata | edge-list file");
  cmd->add_option("--split", d.load.split, "split name (default: the only or first one)");
  cmd->add_flag("--directed", d.load.directed, "keep edge directions as stored");
  cmd->add_flag("--binarize", d.load.binarize, "features x > 0 become 1");
  cmd->add_option("--row-normalize", d.load.row_normalize, "row-normalize features (default 1)");
  cmd->add_option("--nodes", d.load.nodes, "synthetic: vertex count");
  cmd->add_option("--avg-degree", d.load.avg_degree, "synthetic: average degree");
  cmd->add_option("--features", d.load.features, "synthetic: feature width");
  cmd->add_option("--classes", d.load.classes, "synthetic: class count");
}

void add_train_options(CLI::App* cmd, strata::cli::TrainArgs& a) {
  add_dataset_options(cmd, a.data);
  auto& t = a.train;
  cmd->add_option("--model", t.model, "gcn");
  cmd->add_option("--layers", t.layers, "number of GCN layers");
  cmd->add_option("--hidden", t.hidden, "hidden width");
  cmd->add_option("--epochs", t.epochs, "training epochs");
  cmd->add_option("--lr", t.lr, "Adam learning rate");
  cmd->add_option("--weight-decay", t.weight_decay, "L2 weight decay");
  cmd->add_option("--dropout", t.dropout, "dropout probability");
  cmd->add_option("--seed", t.seed, "seed for init, dropout and synthetic data");
  cmd->add_option("--metrics", a.metrics_path, "write JSON Lines metrics to FILE");
}

int report(const std::exception& e, int status) {
  std::cerr << "strata: error: " << e.what() << "\n";
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Strata: full-graph GNN training on partitioned graphs"};
  app.require_subcommand(1);
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "strata: error: " << e.what() << "\n";
    return 2;
  }
  try {
    train.data.load.seed = train.train.seed;  // one seed drives data, init and dropout
    if (*train_cmd) return strata::cli::run_train(train);
    if (*info_cmd) return strata::cli::run_info(info);
    return strata::cli::run_convert(convert);
  } catch (const strata::Error& e) {
    return report(e, e.kind() == strata::ErrorKind::kInput ? 2 : 1);
  } catch (const std::bad_alloc& e) {
    return report(e, 1);
  } catch (const std::exception& e) {
    return report(e, 1);
  }
}
