// A stage of GAT (Velickovic et al. 2018, "Graph Attention Networks"), as PyG's GATConv
// with self-loops: dropout -> GAT conv -> ELU -> ... -> GAT conv. Layer l with K heads of
// width F (hidden layers: K = heads, F = hidden, heads concatenated; the output layer:
// K = output_heads, F = classes, heads averaged):
//   H = dropout(X) W                         (K · F columns, head k in columns kF..kF+F)
//   s_src = <H_k, a_src_k>, s_dst = <H_k, a_dst_k>   (per head)
//   alpha_ij = softmax_j LeakyReLU(s_dst_i + s_src_j, 0.2) over i's neighbours and i
//   Y_i = concat or mean over heads of Σ_j dropout(alpha_ij) H_j, + b
// Every layer transforms first: what its aggregation reads of another row is P = [H |
// s_src] (K · F + K columns), so the halo carries exactly that, and where rows come from
// history (chunks) P holds last epoch's weights' rows. A row's destination score and its
// softmax need its own row only. The backward sends [d H | d s_src] of each column back
// to its owner, which adds the score's share (d s_src a_src) to d H there.
#pragma once
#include <vector>

#include "row_stage.h"

namespace strata {

class GatStage : public RowStage {
 public:
  GatStage(const StageSetup& setup, int first, int last);

  static constexpr float kNegativeSlope = 0.2f;
  static int heads(const ModelConfig& model, int l);
  static int head_width(const ModelConfig& model, int l);  // F
  static bool concatenates(const ModelConfig& model, int l) { return l + 1 < model.num_layers; }
  // P's columns: K · F + K.
  static int exchanged_width(const ModelConfig& model, int l);

  void begin_epoch(std::int64_t epoch, bool training) override;
  void forward(const Block& b) override;
  ConstMatrixView output_rows(const Block& b) const override { return rows(layers_.back().y, b); }
  void backward(const Block& b) override;
  void end_backward() override;

  std::vector<kernels::Tensor*> history_buffers() override;
  std::vector<kernels::Tensor*> carried_buffers() override;
  std::vector<const kernels::Tensor*> layer_outputs() const override;

 private:
  struct Layer {
    int index = 0, heads = 1, width = 0;  // width: F, each head's
    std::size_t weight = 0;               // W; a_src, a_dst (heads x F) and b follow it
    kernels::Tensor p;                    // columns(): [H | s_src], what attention reads
    kernels::Tensor s_dst;                // rows x heads
    kernels::Tensor alpha;                // entries x heads: the softmax, before dropout
    kernels::Tensor x;                    // l > 0: the dropped input rows
    kernels::Tensor y;                    // rows x out: ELU applied but on the last layer
    kernels::Tensor g;                    // columns(): d loss / d P, scattered into
    std::size_t att_src() const { return weight + 1; }
    std::size_t att_dst() const { return weight + 2; }
    std::size_t bias() const { return weight + 3; }
    std::int64_t h_cols() const { return std::int64_t{heads} * width; }
  };
  Layer make_layer(int l, std::size_t first_tensor);
  bool last_model_layer(const Layer& layer) const { return layer.index + 1 == model_.num_layers; }
  kernels::AttentionDropout attention_dropout(const Layer& layer) const;
  MatrixView h_of(kernels::Tensor& p, const Layer& layer) {
    return columns(p.view(), 0, layer.h_cols());
  }
  MatrixView s_src_of(kernels::Tensor& p, const Layer& layer) {
    return columns(p.view(), layer.h_cols(), layer.h_cols() + layer.heads);
  }
  float* alpha_of(Layer& layer, const kernels::EdgeBlock& e) {
    return layer.alpha.data() + e.first_entry * layer.heads;
  }
  // s (rows x heads) = <h's head k, row k of tensor t> for every head.
  void scores(const Layer& layer, ConstMatrixView h, std::size_t t, MatrixView s) const;
  // d h (+)= s's column k times row k of tensor t; dt's row k += s's column kᵀ h's head k.
  void scores_backward(const Layer& layer, ConstMatrixView h, std::size_t t, ConstMatrixView ds,
                       MatrixView dh);
  void prepare_first_layer();
  void forward_layer(Layer& layer, const Block& b, ConstMatrixView input);
  void attend(Layer& layer, const Block& b);
  void backward_attention(Layer& layer, const Block& b, MatrixView grad_y);
  // d loss / d H of b's rows from d loss / d P (grad_p, taken from g) and a_src's gradient.
  MatrixView own_rows_gradient(Layer& layer, const Block& b, MatrixView grad_p);

  int first_, last_;
  std::vector<Layer> layers_;
};

}  // namespace strata
