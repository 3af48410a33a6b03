// The configuration of a training job: plain structs with the CLI's defaults.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace strata {

/// How the work is split across the ranks.
///  kLocal:    one process trains the whole graph (the reference the others match).
///  kGraph:    rank p owns part p of the graph; halo rows are exchanged at every layer.
///  kPipeline: rank s owns a run of consecutive layers over the whole graph; chunks of
///             vertices flow through the stages (GNNPipe). Exact with one chunk.
///  kHybrid:   P = S x G ranks: S pipeline stages, each graph-parallel over G parts
///             (Config::Hybrid::parts); rank r is stage r / G, part r % G. S = 1 computes
///             what kGraph does, G = 1 what kPipeline does; exact with one chunk.
enum class Mode { kLocal, kGraph, kPipeline, kHybrid };

/// "local", "graph", "pipeline" or "hybrid"; anything else throws an input Error.
Mode parse_mode(std::string_view name);
const char* mode_name(Mode mode);

struct Config {
  Mode mode = Mode::kGraph;
  /// Seeds the initialization, dropout, the partitioner and the chunking.
  std::uint64_t seed = 0;

  struct Model {
    /// "gcn" (Kipf & Welling 2017), "gcnii" (Chen et al. 2020), "sage" (GraphSAGE with
    /// the mean aggregator, Hamilton et al. 2017) or "gin" (Xu et al. 2019: sum
    /// aggregation, (1 + eps) on the own row, a 2-layer MLP of width `hidden`) or "gat"
    /// (Velickovic et al. 2018: attention over the neighbours and the vertex itself; a
    /// hidden layer is `heads` heads of width `hidden`)
    std::string kind = "gcn";
    int layers = 2;              ///< graph convolutions (gcnii adds an input and an output linear)
    int hidden = 16;             ///< hidden width
    float dropout = 0.5f;        ///< in [0, 1)
    float alpha = 0.1f;          ///< gcnii: weight of the initial residual, in [0, 1]
    float lambda = 0.5f;         ///< gcnii: identity mapping beta_l = log(lambda / l + 1), > 0
    bool eps_learnable = false;  ///< gin: learn eps (from 0); otherwise eps = 0
    int heads = 1;               ///< gat: heads of the hidden layers, concatenated
    int output_heads = 1;        ///< gat: heads of the output layer, averaged
    float attention_dropout = 0.0f;  ///< gat: dropout of the attention weights, in [0, 1)
  } model;

  struct Optimizer {   ///< Adam
    int epochs = 200;  ///< 0: no training, Trainer::train evaluates the current weights
    float lr = 0.01f;
    float weight_decay = 5e-4f;  ///< L2, on every weight and bias
    /// A step whose loss, layer outputs or gradients hold NaN or inf: "stop" throws an
    /// Error naming the epoch, the rank and the first such value; "skip-step" leaves the
    /// weights unchanged and goes on (EpochRecord::step_skipped).
    std::string on_nan = "stop";
  } optimizer;

  /// Where each rank's tensors live. "cuda" keeps features (sparse ones sparse),
  /// activations, the pipeline's history, gradients and Adam's state on one GPU per rank
  /// (rank r uses GPU r % the GPUs it sees), in every mode and for every model.
  struct Device {
    std::string kind = "cpu";  ///< cpu | cuda
    /// With cuda, how halo rows, stage rows and gradients move between GPUs: "nccl", or
    /// "mpi" (staged through pinned host memory; Debian's OpenMPI is not CUDA-aware).
    std::string comm = "mpi";
    /// With cuda, the cuSPARSE SpMM algorithm: "deterministic" (CSR algorithm 2, the same
    /// bits every run) or "fastest" (the library's default choice).
    std::string spmm = "deterministic";
  } device;

  /// Graph mode, when the graph is given whole: how it is split into one part per rank.
  struct Partition {
    std::string method = "metis";  ///< metis | random | range | rcm | fennel
    double imbalance = 0.03;       ///< allowed max / average part weight, minus one
    bool balance_edges = true;     ///< METIS also balances adjacency entries, not only vertices
    bool min_volume = false;       ///< METIS minimizes communication volume instead of edge cut
  } partition;

  /// Pipeline mode (one stage per rank), and the stages of hybrid mode.
  struct Pipeline {
    int chunks = 4;                    ///< vertex chunks per epoch; 1 is exact
    std::string chunking = "metis";    ///< metis | rcm | range
    std::string layer_split;           ///< "4,4,4,4": layers per stage; empty: balanced by cost
    std::string stale_grad = "exact";  ///< exact | drop | delay: see --stale-grad
    float stale_weight = 1.0f;         ///< delay: the share of last epoch's stale gradient added
    int warmup_epochs = 0;             ///< exact (one-chunk) epochs before chunking starts
    bool alternate_order = false;      ///< reverse the chunk order on odd epochs
    float smoothing = 0.0f;            ///< history = s * previous + (1 - s) * fresh, in [0, 1)
    /// Pipeline mode: also take every step exactly and report how far the chunked one is
    /// (EpochRecord::gradient_cosine, layer_error); about doubles an epoch's time.
    bool diagnose = false;
  } pipeline;

  /// What a rank keeps in memory.
  struct Memory {
    /// Recompute each aggregation Â P in the backward instead of keeping it: one sparse
    /// product more per GCN or GraphSAGE layer and epoch, a matrix of N x width less. Mode
    /// local, and pipeline with one chunk; the weights are the same bit for bit.
    bool recompute = false;
    /// How the aggregations Â P kept for the backward are stored: "fp32", or "bf16" (half
    /// the bytes; the forward multiplies the rounded rows and the weight gradient reads
    /// them, all arithmetic in fp32). GCN, GraphSAGE and GIN, every mode; in a chunked
    /// pipeline, bf16 also keeps each layer's input and history but the features (not
    /// with history smoothing or diagnose).
    std::string storage = "fp32";
    /// GCN's (and GCNII's) Â = D^-1/2 (A + I) D^-1/2: "values", a value stored an entry,
    /// or "degrees", each formed from its row's and column's D^-1/2 as it is multiplied
    /// (4 bytes an entry less, each sparse product slower; the weights are the same bit for
    /// bit). GraphSAGE's mean and GIN's sum keep no value an entry either way. CPU only:
    /// cuSPARSE multiplies stored values, so --device cuda refuses "degrees".
    std::string adjacency = "values";
  } memory;

  /// Graph and hybrid mode: the halo exchange of a block of every row.
  struct Halo {
    /// Multiply each layer's rows over their own part's columns while the halo rows travel,
    /// then over the halo's (the same arithmetic either way); false: wait for them first.
    bool overlap = true;
  } halo;

  /// Graph, pipeline and hybrid mode: the format halo rows and stage rows travel in.
  /// "none" (float32), "bf16" (bfloat16, rounded to nearest) or "int8" (a byte per value
  /// with a per-row range, rounded stochastically from the seed, epoch and row, so runs
  /// stay deterministic). Counted and predicted (`strata comm-volume`) in that format.
  struct Compress {
    std::string forward = "none";  ///< activations, and the evaluation pass
    std::string backward;          ///< their gradients; empty: as forward
  } compress;

  /// Hybrid mode: the graph is split into `parts` parts with Config::Partition, and the
  /// job's ranks / parts stages run the pipeline over them.
  struct Hybrid {
    int parts = 2;  ///< divides the rank count
  } hybrid;

  /// Saving the training state (weights, Adam's moments, the pipeline's history, the
  /// result so far) and resuming from it. Every rank must see dir. A resumed run's
  /// weights equal the uninterrupted run's bit for bit; resuming with other settings (mode,
  /// ranks, model, optimizer, pipeline options) is refused.
  struct Checkpoint {
    std::string dir;      ///< empty: no checkpoints
    int every = 0;        ///< save after every N-th epoch; the last epoch is always saved
    bool resume = false;  ///< continue from the newest complete checkpoint in dir, if any
    int keep = 2;         ///< complete checkpoints kept; older ones are removed
    /// Rank 0: one line per event (saved, skipped as incomplete or damaged, resumed).
    std::function<void(const std::string&)> on_event;
  } checkpoint;

  /// Timing every operation of this rank's device (`strata train --profile`): its time,
  /// memory traffic and arithmetic per epoch, against its floor on this machine
  /// (TrainingResult::profile). Each operation waits for the one before, so a profiled
  /// epoch runs a little slower than a plain one.
  struct Profile {
    bool enabled = false;
    /// The roofline's rates: read from this file if it exists, else measured and written
    /// to it; empty: measured (about a second).
    std::string roofline;
  } profile;
};

}  // namespace strata
