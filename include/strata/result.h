// What training returns: per-epoch metrics, final accuracies, bytes, timings, weights.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace strata {

/// One epoch, as the whole job saw it (every rank holds the same record).
struct EpochRecord {
  std::int64_t epoch = 0;
  double loss = 0;  ///< mean training cross-entropy of the epoch's training step
  double train_acc = 0, val_acc = 0, test_acc = 0;  ///< after the step, exact evaluation
  double epoch_s = 0;    ///< wall time of the training step (slowest rank)
  double compute_s = 0;  ///< distributed modes: largest compute time over ranks
  double comm_s = 0;     ///< distributed modes: largest time waiting in communication
  /// Graph and hybrid mode: the largest time a rank's halo transfers were in flight while
  /// it computed (posting to waiting; at most what the overlap hid: a transfer may have
  /// ended before its wait). 0 with --no-overlap.
  double comm_overlap_s = 0;
  /// Bytes sent this epoch, summed over ranks, by category: halo_fwd, halo_bwd,
  /// stage_fwd, stage_bwd, allreduce (training) and eval (the evaluation pass).
  std::map<std::string, std::int64_t> comm_bytes;
  /// The format each category of comm_bytes travelled in: "float32", "bf16" or "int8"
  /// for rows (Config::Compress), "float64" or "float32" for the all-reduced gradients.
  std::map<std::string, std::string> comm_format;
  /// Pipeline mode: per stage, compute and idle time of the training step, and the
  /// fraction of the normalized adjacency's entries read from history this epoch.
  std::vector<double> stage_compute_s, stage_idle_s;
  double history_fraction = 0;
  /// Config::Optimizer::on_nan "skip-step": this step met NaN or inf and was not applied.
  bool step_skipped = false;
  /// Config::Pipeline::diagnose: the same step taken exactly (one chunk, the same weights
  /// and dropout masks) against the chunked one: the cosine between their gradients, the
  /// exact step's loss, and per graph layer |Y_chunked - Y_exact| / |Y_exact|.
  double gradient_cosine = 0;
  double exact_loss = 0;
  std::vector<double> layer_error;
};

/// The whole graph, as loaded.
struct GraphSummary {
  std::string name;
  std::int64_t vertices = 0;
  std::int64_t edges = 0;  ///< directed adjacency entries (2 per undirected edge)
  std::int64_t features = 0;
  bool sparse_features = false;
  double feature_density = 1;  ///< fraction of nonzero feature values
  std::int32_t classes = 0;
};

/// Pipeline mode: what stage s runs and the memory it was predicted to need.
struct StagePlan {
  int first_layer = 0, last_layer = 0;  ///< 1-based, inclusive
  std::int64_t estimated_bytes = 0;     ///< data, layout, activations and parameters
  std::string estimate_detail;          ///< "412.3 MB (dataset 12.0, layout 30.1, ...)"
};

/// One operation of Config::profile, per epoch of the epochs after the first.
struct OpLine {
  std::string op;  ///< the backend's name: spmm, gemm, weight_gradient, relu_forward, ...
  double calls = 0, seconds = 0;
  double bytes = 0;         ///< compulsory memory traffic: each operand read or written once
  double gather_bytes = 0;  ///< sparse products: a dense row read per stored entry
  double flops = 0;         ///< 2 x multiply-adds
  /// max(bytes / the stream rate at a working set of `bytes`, gather_bytes / the stream
  /// rate at the size of the matrix the rows come from (at most the gather rate), flops /
  /// the GEMM rate), summed over the calls; 0 where the roofline is unknown.
  double floor_s = 0;
};

/// A STREAM triad's rate (a = b + 3 c) with its three arrays totalling `bytes`: from the
/// caches' rates at small working sets to the memory's at large ones.
struct StreamRate {
  double bytes = 0, bytes_per_s = 0;
};

/// The rates Config::profile's floors are drawn against.
struct Roofline {
  std::vector<StreamRate> stream;  ///< triads of 1, 4, 16, 64 and 512 MiB, smallest first
  /// Gathered rows (sparse products) at best; measured: the 1 MiB triad's, rows from the
  /// nearest cache. A product whose matrix is larger gathers at the triad's rate at its size.
  double gather_bytes_per_s = 0;
  double gemm_flops_per_s = 0;  ///< (32768 x 64) x (64 x 64) through the backend's GEMM
  std::string source;           ///< "measured", the file's path, or "none": no floors
};

/// Config::profile on one rank: where its epochs go and how far each operation is from
/// what the machine allows.
struct Profile {
  std::vector<OpLine> ops;  ///< slowest first
  double epochs = 0;        ///< the epochs averaged (all but the first, or the only one)
  double epoch_s = 0;       ///< wall time per epoch: training step and evaluation pass
  double comm_wait_s = 0;   ///< waiting in communication (EpochRecord::comm_s)
  double other_s = 0;       ///< the rest: the engine's own work between operations
  double floor_s = 0;       ///< the operations' floors summed: the epoch's floor
  Roofline roofline;
};

struct TrainingResult {
  std::vector<EpochRecord> epochs;
  /// The final weights' accuracies: the last epoch's record, or with zero epochs one
  /// evaluation of the weights training started from.
  EpochRecord final_eval;
  double test_acc = 0;  ///< at the first epoch with the best validation accuracy
  double best_val_acc = 0;
  std::int64_t best_epoch = -1;     ///< -1 with zero epochs
  std::int64_t resumed_epochs = 0;  ///< epochs restored from a checkpoint (0: a fresh start)
  std::map<std::string, std::int64_t> comm_bytes;  ///< all epochs, by category
  std::map<std::string, std::string> comm_format;  ///< as EpochRecord::comm_format
  double seconds = 0;                              ///< wall time of train(), this rank
  /// Per rank: peak resident memory of the process so far, and the memory predicted
  /// for it (pipeline and hybrid mode on the CPU: its stage's estimate plus the process
  /// baseline; else 0).
  std::vector<std::int64_t> peak_resident_bytes, estimated_bytes;
  /// Per rank, with Config::Device::kind "cuda": the most GPU memory in use after any
  /// epoch (cudaMemGetInfo: every process's on that GPU, the CUDA runtime's included).
  std::vector<std::int64_t> device_bytes;
  Profile profile;  ///< Config::profile: this rank's (empty ops otherwise)
};

/// One parameter tensor, row-major. Names follow the model: gcn "conv1.weight"
/// (in x out), "conv1.bias" (1 x out), ...; sage adds "conv<l>.root_weight" (in x out);
/// gcnii "input.*", "conv<l>.weight", "output.*".
struct Tensor {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  std::vector<float> values;
};

}  // namespace strata
