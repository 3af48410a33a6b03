// The models Strata trains. Each is defined once, by a ModelType: its parameters, its shape
// (what the plan needs: exchanged widths, stage boundaries, cost, memory) and its stage,
// the one implementation of its layers, which serves the whole graph and a chunk alike.
// A registry maps --model NAME to it.
//   gcn:   dropout -> GCN conv -> ReLU -> ... -> GCN conv (Kipf & Welling; conv_model.h)
//   gcnii: input linear, L GCNII convs with initial residual and identity mapping, output
//          linear (Chen et al. 2020; gcnii_stage.h)
//   sage:  GraphSAGE, mean aggregator and root weight (Hamilton et al. 2017; conv_model.h)
//   gin:   GIN, sum aggregation with (1 + eps) on a vertex's own row, then a 2-layer MLP
//          (Xu et al. 2019, as PyG's GINConv; conv_model.h)
//   gat:   GAT, multi-head attention over each vertex's neighbours and itself (Velickovic
//          et al. 2018, as PyG's GATConv; gat_stage.h)
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/layers/model_config.h"
#include "strata/layers/parameters.h"
#include "strata/layers/stage.h"

namespace strata {

// Which normalisation of the adjacency A a model aggregates with (degrees are the whole
// graph's, so every partition normalises alike).
enum class Propagation {
  kGcn,   // Â = D^-1/2 (A + I) D^-1/2
  kMean,  // Ā = D^-1 A: the mean over the neighbours
  kSum,   // A + I: the sum over the neighbours and the vertex itself
};

// Whether every row of the propagation matrix holds its diagonal entry.
inline bool has_self_loops(Propagation p) {
  return p != Propagation::kMean;
}

// What a model moves and costs, layer by layer (the plan's input). Layer l reads width[l]
// and writes width[l + 1].
struct ModelShape {
  std::vector<int> widths;              // d_0 = F ... d_L = C
  std::vector<int> exchange_widths;     // per layer: rows exchanged by its aggregation
  std::vector<bool> backward_exchange;  // per layer: whether backward exchanges too
  std::vector<int> boundary_widths;     // per layer: rows handed to the next layer's stage
  std::vector<double> costs;            // per layer: estimated work, for stage splits
  std::int64_t parameters = 0;          // trainable scalars, all layers
  int layers() const { return static_cast<int>(exchange_widths.size()); }
};

// The graph a shape is of: vertices, the entries of the propagation matrix, and the
// nonzero fraction of the input features (sparse input costs that much of a dense product).
struct GraphSize {
  std::int64_t nodes = 0, entries = 0;
  double feature_density = 1.0;
};

// The rows of a stage's buffers: those it computes, and those its aggregation reads (its
// rows, then the halo); chunked without a halo, layers read history; one block of every
// row without a halo needs no gradient accumulators (stage.h, whole_rows_only). Unchunked
// (one block per pass), buffers whose uses never overlap share memory; recompute and
// bf16 (storage kBf16) are StageSetup's options. Chunked with a whole backward
// (StageSetup::whole_backward), every forward ends before the backward: P0 lies in the
// backward's scratch as it does unchunked.
struct StageRows {
  std::int64_t owned = 0, columns = 0;
  bool reads_history = false;
  bool whole_rows_only = false;
  bool shares = false;
  bool halo = false;
  bool recompute = false;
  bool bf16 = false;
  std::int64_t entries = 0;  // the propagation matrix's, in the owned rows (attention's)
  bool whole_backward = false;
  // Stage::forward_ends_before_backward: P0 may lie in the backward's scratch.
  bool forward_ends_first() const { return shares || whole_backward; }
};

class ModelType {
 public:
  virtual ~ModelType() = default;
  virtual const char* name() const = 0;
  virtual Propagation propagation() const = 0;
  // Every parameter tensor, in order ("conv1.weight", ...), with the layer that holds it.
  virtual std::vector<TensorShape> parameters(const ModelConfig& c) const = 0;
  virtual ModelShape shape(const ModelConfig& c, const GraphSize& g) const = 0;
  // Floats in the full-size buffers of the stage of layers [first, last).
  virtual std::int64_t stage_floats(const ModelConfig& c, int first, int last,
                                    const StageRows& rows) const = 0;
  // The widest rows the stage's halo buffers hold.
  virtual std::int64_t stage_width(const ModelConfig& c, int first, int last) const = 0;
  // Floats in the scratch the backward of a block of `block` rows uses (which only grows).
  virtual std::int64_t scratch_floats(const ModelConfig& c, int first, int last,
                                      const StageRows& rows, std::int64_t block) const = 0;
  // Whether layer 0 multiplies the features by a weight (then dense features under
  // dropout are dropped into a copy of their own), rather than only copying them.
  virtual bool multiplies_features(const ModelConfig& c) const = 0;
  // The number of the layer whose output is the logits (gcnii: its output linear, L + 1).
  virtual int output_layer(const ModelConfig& c) const { return c.num_layers; }
  // Whether the model's layers read Â's entries one by one (BlockGraph::entries: attention).
  virtual bool reads_entries() const { return false; }
  virtual std::unique_ptr<Stage> make_stage(const StageSetup& setup, int first, int last) const = 0;
};

const ModelType& model_type(ModelKind kind);
// A registered name ("gcn"); anything else is an input error naming --model and the choices.
ModelKind parse_model_kind(std::string_view name);
const char* model_kind_name(ModelKind kind);
std::string model_names();  // "gcn, gcnii, sage, gin, gat"

// model_type(c.kind)'s, for short.
std::vector<TensorShape> parameter_shapes(const ModelConfig& c);
// The model's tensors that the stage of layers [first, last) holds: [begin, end).
std::pair<std::size_t, std::size_t> stage_tensor_range(const ModelConfig& c, int first, int last);
std::unique_ptr<Stage> make_stage(const StageSetup& setup, int first, int last);

}  // namespace strata
