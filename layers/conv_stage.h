// A stage of graph convolutions Y = Â X W + b [+ X W_root] with ReLU between them
// (conv_model.h: GCN, GraphSAGE, GIN), Â the model's propagation matrix: dropout -> conv ->
// ReLU -> ... -> conv. GIN's conv weighs a vertex's own row by 1 + eps (Â = A + I, plus eps
// times the own row) and is followed by its MLP's second linear layer: the conv is the
// MLP's first, H = ReLU(Â X W1 + b1), Y = H W2 + b2. Each layer picks its product order
// so that the halo exchange moves the narrower matrix (out: the conv's width, W's columns):
//   in <= out: aggregate first, Y = (Â P) W with P = dropout(X)  (exchange width in)
//   in >  out: transform first, Y = Â P with P = dropout(X) W    (exchange width out)
// Where rows are read from history (chunks without a halo) layers after the first always
// aggregate first, so that the history holds their input and this epoch's W applies to it.
// With --storage bf16, a chunked pipeline stage keeps each layer's input P (but the
// features), its history, in bf16 (stores_history): a block's rows, received or the layer
// before's Y, are written to rows the aggregation writes next, dropped there, then stored;
// Â, the root and eps terms, and the layer before's ReLU (its mask) read the stored rows.
// The root term reads a row's own dropped input, never another row's: no exchange; so do
// GIN's eps term (eps P[own rows], in either order) and its MLP.
#pragma once
#include <optional>
#include <vector>

#include "row_stage.h"
#include "strata/layers/model.h"

namespace strata {

// The terms a model's convolutions have beside Â X W + b (conv_model.h).
struct ConvForm {
  bool root_weight = false;  // + X W_root (GraphSAGE)
  bool mlp = false;          // GIN: eps on the own row (when learnt), then ReLU, W2, b2
};

class ConvStage : public RowStage {
 public:
  ConvStage(const StageSetup& setup, int first, int last, ConvForm form);

  // The width of layer l's conv, W's columns: GIN's MLP hidden width, else the output's.
  static int conv_width(const ModelConfig& model, int l);
  // Whether layer l aggregates first in this setting (as above).
  static bool aggregates_first(const ModelConfig& model, int l, bool reads_history);
  // How layer l keeps the aggregation Z = Â P its weight gradient reads (aggregate first;
  // otherwise kFloat32): recomputed where asked and P outlives the backward (one block per
  // pass; with a halo, a layer > 0 whose accumulator lies in the gradients' buffer,
  // g_in_grads, so not beside a root term); in bf16 where asked and Z fits in the layer's
  // output rows; else as computed. The stage and the memory estimate (ConvModel) both
  // follow it.
  enum class KeptZ { kFloat32, kBf16, kRecomputed };
  static KeptZ kept_z(const ModelConfig& model, ConvForm form, int l, const StageRows& rows);
  // Whether layer l keeps its input P in bf16 (above): a layer after the first reading
  // history, with --storage bf16.
  static bool stores_history(int l, int first, const StageRows& rows);
  // Whether layer l's dY Wᵀ may be written over its output rows Y (grad_z_rows) where Z
  // is not kept in fp32: Y is dead once the backward has read it (in a stage ending at
  // `last`, its outputs not read after the backward). The estimate takes outputs_read as
  // false (--diagnose keeps them: a little more).
  static bool ys_hold_grad_z(const ModelConfig& model, int l, int last, const StageRows& rows,
                             bool outputs_read);

  // Where the backward keeps the gradients of rows (d loss / d Y, d loss / d a layer's
  // input). Where every forward ends before the backward and no root term reads d loss / d
  // Y late, one buffer holds them all, each layer writing d loss / d its input over the
  // d loss / d Y it has read: layer 0's input's scratch (P0 is dead by then; not on a
  // chunked last stage, whose loss gradient is written while later chunks still read P0),
  // or a buffer of the stage's own (kOwn), which the stage's output and input gradients
  // are views of. Else two scratch buffers in turn (kAlternating), and the stage's output
  // and input gradients have buffers of their own. The stage and ConvModel follow it.
  enum class GradHome { kAlternating, kOverFirstInput, kOwn };
  static GradHome grad_home(const ModelConfig& model, ConvForm form, int first, int last,
                            const StageRows& rows);
  // Floats the buffer must hold: the widest gradient of rows, or of an accumulator below.
  static std::int64_t grads_floats(const ModelConfig& model, int first, int last, GradHome home,
                                   const StageRows& rows);
  // Whether layer l's gradient accumulator G (columns(), with a halo) lies in that buffer
  // too, once d loss / d Y is read: an aggregate-first layer > 0 with a halo (whose backward
  // sends dY Wᵀ, kept elsewhere, through Âᵀ). Its input P then outlives the backward, and
  // the previous layer's output Y lies in P's first rows (dropped in place), as without a
  // halo.
  static bool g_in_grads(const ModelConfig& model, int l, GradHome home, const StageRows& rows);

  // Whether a stage over graph shares memory between buffers whose uses never overlap:
  // with one block per pass (unchunked), each forward ends before its backward begins, and
  // then P0 lives in the backward's scratch and a layer's input (Z, or P without a halo)
  // is the previous layer's Y, dropped in place.
  static bool shares_memory(const BlockGraph& graph);
  // The parameter tensors of each layer (W, b, W_root, W2, b2, eps where present).
  static std::size_t tensors_per_layer(const ModelConfig& model, ConvForm form);
  // Rows of Z a recomputing layer holds at once (1 MiB at width 64): a multiple of the CPU
  // weight gradient's blocks, so that its sums add up in the same order as over b whole.
  static constexpr LocalId kSliceRows = 4096;

  void begin_epoch(std::int64_t epoch, bool training) override;
  MatrixView input_rows(const Block& b) override;
  void forward(const Block& b) override;
  ConstMatrixView output_rows(const Block& b) const override { return rows(layers_.back().y, b); }
  void backward(const Block& b) override;
  void end_backward() override;

  std::vector<kernels::Tensor*> history_buffers() override;
  std::vector<kernels::Tensor*> carried_buffers() override;
  std::vector<kernels::Buffer*> stored_buffers() override;
  std::vector<const kernels::Tensor*> layer_outputs() const override;

 private:
  // The stage's scratch buffers (Stage::scratch), by use.
  enum Scratch { kGradY, kGradX, kGradZ, kGradP, kSlice, kGradH };
  struct Layer {
    int index = 0;
    bool aggregate_first = false;
    std::size_t weight = 0;           // W's tensor in parameters_; b follows it
    std::optional<std::size_t> root;  // W_root's tensor, with a root weight
    std::optional<std::size_t> mlp;   // GIN: W2's tensor (b2 follows it)
    std::optional<std::size_t> eps;   // GIN with a learnt eps: its 1 x 1 tensor
    float eps_value = 0.0f;           // eps on the host, read as each pass begins
    kernels::Tensor p;                // columns(): what Â multiplies (the history)
    kernels::Buffer p_bf16;           // stores_history: P's rows in bf16 (p then empty)
    kernels::Tensor z;                // aggregate first: Â P; transform first: dropout(X) (l > 0)
    kernels::Buffer z_bf16;           // --storage bf16: Â P's rows in bf16 (z then empty)
    kernels::Tensor h;                // GIN: the conv's output H, ReLU applied (W2's input)
    kernels::Tensor y;                // the output, ReLU applied but on the model's last layer
    kernels::Tensor g;                // columns(): d loss / d P, scattered into by every block
    bool recompute = false;           // aggregate first without Z: Â P again in the backward
    bool g_borrowed = false;          // G lies in P's or the gradients' memory (make_layer)
    bool p_in_scratch = false;        // P0 lies in the backward's scratch (make_layer)
    bool stored() const { return z_bf16.bytes() > 0; }
    bool history_stored() const { return p_bf16.bytes() > 0; }
  };
  Layer make_layer(int l, std::size_t first_tensor, const StageSetup& setup);
  bool g_in_grads(int l) const;  // the static one, but not while delaying stale gradients
  StageRows rows_of(const StageSetup& setup) const;
  // The gradients' buffer's rows of b as `width` floats each (GradHome other than
  // kAlternating; b is every row).
  MatrixView grads_rows(const Block& b, int width);
  float* grads_data();
  static GradHome grad_home_of(const StageSetup& setup, ConvForm form, int first, int last);
  void point_gradients_at_grads();
  // A layer's tensors among the stage's, the first at first_tensor (ConvModel::parameters'
  // order: W, b, W_root, W2, b2, eps, each where the model has it).
  Layer layer_tensors(std::size_t first_tensor) const;
  kernels::Tensor first_input_over_scratch(std::int64_t cols, int width);
  void prepare_first_layer();
  void root_backward(Layer& layer, const Block& b, ConstMatrixView grad_y, MatrixView grad_x);
  MatrixView input_of(Layer& layer, const Block& b);
  void forward_layer(Layer& layer, const Block& b);
  // Y[b] from the exchanged P: aggregation, W (aggregate first), root term, bias, ReLU.
  void aggregate_layer(Layer& layer, const Block& b);
  // The conv's output rows of b: H (GIN) or Y.
  MatrixView conv_rows(Layer& layer, const Block& b);
  // out = Â P's rows s (P: `columns`), plus eps P[s] where eps is learnt (conv_terms.cpp).
  void aggregate_into(Layer& layer, const Block& s, ConstMatrixView columns, MatrixView out);
  // The same from the layer's own P, stored in bf16 or not.
  void aggregate_input(Layer& layer, const Block& s, MatrixView out);
  // A stored P (history_rows.cpp): where a block's received rows wait (rows the
  // aggregation writes next), their storing, the stored rows as Â reads them, a slice of
  // them decoded, and their dropout at the start of a pass.
  MatrixView arrival_rows(Layer& layer, const Block& b);
  Layer* next_layer(const Layer& layer);  // on this stage, or null
  // A layer's output rows of b: Y's, or where Y is not kept (the next layer stores its P)
  // the next layer's arrival rows; and the ReLU's backward on them.
  MatrixView output_of(Layer& layer, const Block& b);
  void relu_backward(Layer& layer, const Block& b, MatrixView grad_y);
  void store_input(Layer& layer, const Block& b);
  Bf16RowsView stored_history(const Layer& layer) const;
  MatrixView history_slice(Layer& layer, const Block& s);
  void drop_stored_history(Layer& layer);
  // f(b, rows) where P is not stored, else f(s, P[s]) over b's slices, decoded (P is then
  // the dropped input, what both the root and the eps term read).
  template <typename F>
  void for_input_slices(Layer& layer, const Block& b, ConstMatrixView rows, F f);
  // GIN: Y[b] = H[b] W2 + b2, ReLU but on the model's last layer.
  void mlp_forward(Layer& layer, const Block& b);
  // The backward of what follows the conv's product on b's rows: the ReLU (and GIN's MLP:
  // its W2, b2 and hidden ReLU), the conv's bias. Returns d loss / d (the conv's product):
  // grad_y itself, or (GIN) grad_h.
  MatrixView activation_backward(Layer& layer, const Block& b, MatrixView grad_y,
                                 MatrixView grad_h);
  // The eps term's share of the backward, once the conv's gradient `sent` (what Âᵀ takes,
  // on b's rows) is known: d eps += <sent, P[b]>.
  void eps_gradient(Layer& layer, const Block& b, ConstMatrixView sent);
  void read_eps();
  // Aggregate first with Z in bf16: Z = Â P in Y's rows (Z is no wider), stored, then
  // Y = Z W from the stored rows a slice at a time.
  void aggregate_stored(Layer& layer, const Block& b, MatrixView y);
  MatrixView stored_slice(Layer& layer, const Block& s);  // Z's rows s, decoded to scratch
  // Rows into a bf16 buffer (Z or P) from row `begin` on; a buffer's rows s decoded into
  // the slice scratch (history_rows.cpp).
  void store_bf16(ConstMatrixView rows, kernels::Buffer& packed, LocalId begin) const;
  MatrixView decode_slice(const kernels::Buffer& packed, const Block& s, int width);
  // Aggregate first: dW += Zᵀ dY over b's rows, Z kept, or decoded or recomputed slice by
  // slice.
  void weight_gradient(Layer& layer, const Block& b, ConstMatrixView grad_y);
  std::vector<Block> slices(const Block& b) const;
  void first_layer_backward(Layer& layer, const Block& b, ConstMatrixView grad_y);
  // A layer whose gradient through Âᵀ is still arriving, and the scratch rows (of a whole
  // block) its backward ends in: d loss / d Y, d loss / d P (grad_x itself when the layer
  // aggregates first) and d loss / d its input.
  struct Arriving {
    Layer* layer = nullptr;
    MatrixView grad_y, grad_p, grad_x;
  };
  void start_layer(Layer& layer, const Block& b, MatrixView grad_y, MatrixView grad_h,
                   MatrixView grad_z);
  MatrixView grad_z_rows(Layer& layer, const Block& b);
  MatrixView input_gradient_rows(const Layer& layer, const Block& b, bool stage_input, int& buffer);
  void finish_layer(const Arriving& a, const Block& b, const Block& piece, bool take);
  bool last_model_layer(const Layer& layer) const { return layer.index + 1 == model_.num_layers; }

  int first_, last_;
  ConvForm form_;
  GradHome grad_home_;
  bool outputs_after_backward_;
  StageRows rows_;         // (rows_of)
  kernels::Tensor grads_;  // GradHome::kOwn: the gradients' buffer
  std::vector<Layer> layers_;
  kernels::Tensor root_, root_grad_;  // layer 0 with a root weight: X W_root, d loss / d it
};

// Not stored: in one call (the same products as before a history was stored).
template <typename F>
void ConvStage::for_input_slices(Layer& layer, const Block& b, ConstMatrixView rows, F f) {
  if (!layer.history_stored()) {
    f(b, rows);
    return;
  }
  for (const Block& s : slices(b)) f(s, ConstMatrixView(history_slice(layer, s)));
}

}  // namespace strata
