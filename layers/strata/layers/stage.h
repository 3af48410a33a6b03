// A pipeline stage: a run of a model's consecutive graph layers, computed block by block
// over every row a rank holds (block_graph.h). It keeps full-size per-layer buffers, so a
// row of a chunk that has not run yet this epoch holds its last value: the history. One
// stage of every layer over one block of every row is whole-graph training (local and
// graph mode); the schedule (training/) moves rows between stages, a stage only computes.
//
// Every tensor lives in the stage's backend memory and starts at zero, so the history of
// the first epoch reads zeros on every backend.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/kernels/backend.h"
#include "strata/layers/block_graph.h"
#include "strata/layers/features.h"
#include "strata/layers/model_config.h"
#include "strata/layers/parameters.h"

namespace strata {

// What happens to gradient that reaches a row whose backward already ran this epoch
// (an edge read from history): dropped, or added to that row's gradient next epoch. With
// kExact no such row exists: the trainer runs the backward of every row at once, after the
// whole forward, so the gradient is the exact one of the forward that read history; a
// stage sees it as kDrop.
enum class StaleGrad { kDrop, kDelay, kExact };

inline const char* stale_grad_name(StaleGrad s) {
  return s == StaleGrad::kDelay ? "delay" : s == StaleGrad::kExact ? "exact" : "drop";
}

// What every stage is built from. The references must outlive the stage.
struct StageSetup {
  const kernels::Backend& backend;
  ModelConfig model;
  BlockGraph& graph;
  Features* features = nullptr;  // the stage holding layer 0 only: row r is graph row r
  StaleGrad stale = StaleGrad::kDrop;
  // kDelay: the weight of last epoch's stale gradient when it is added (1: all of it).
  float stale_weight = 1.0f;
  // Keep no aggregation Â P that the backward needs: recompute it there, a slice of rows at
  // a time (one more sparse product per such layer and training pass). Honoured where a
  // layer's input outlives its backward: one block per pass, and with a halo only past
  // layer 0 and beside no root term (ConvStage::kept_z).
  bool recompute = false;
  // kBf16: an aggregate-first layer keeps Z = Â P in bf16, half the bytes, where Z fits in
  // the layer's output rows (input no wider than output, ConvStage): the forward multiplies
  // the rounded Z, which the weight gradient reads back. kFloat32: Z as computed.
  RowCodec storage = RowCodec::kFloat32;
  // The trainer runs the backward as one block of every row once every block's forward
  // has run (StaleGrad::kExact, which it hands the stage as kDrop): no block's gradient
  // waits for another's, so no accumulator is kept, as for an unchunked stage.
  bool whole_backward = false;
  // Stage::layer_outputs() are read after a backward (--diagnose): the backward leaves them.
  bool outputs_after_backward = false;
};

class Stage {
 public:
  // The stage of graph layers [first, last); it holds the parameter tensors of those layers.
  Stage(const StageSetup& setup, int first, int last);
  virtual ~Stage() = default;
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;

  // A training pass zeroes the gradients that are not carried over; evaluation uses none.
  virtual void begin_epoch(std::int64_t epoch, bool training) = 0;
  // Stage > 0: the previous stage's output rows of block b go here before forward(b).
  virtual MatrixView input_rows(const Block& b) = 0;
  virtual void forward(const Block& b) = 0;
  // The rows forward(b) produced: the next stage's input, or logits on the last stage.
  virtual ConstMatrixView output_rows(const Block& b) const = 0;
  // d loss / d output rows of block b go here before backward(b).
  virtual MatrixView output_grad_rows(const Block& b) = 0;
  // Adds b's share of the parameters' gradient sums.
  virtual void backward(const Block& b) = 0;
  // Stage > 0: d loss / d input rows of block b, after backward(b).
  virtual ConstMatrixView input_grad_rows(const Block& b) const = 0;
  // Adds the gradient that needs every block (the features' layer).
  virtual void end_backward() = 0;

  Parameters& parameters() { return parameters_; }
  // The full-size buffers later chunks read as history (smoothing blends them), and every
  // buffer the next epoch reads before writing it: the history, and with StaleGrad::kDelay
  // the gradients carried over (a checkpoint saves these).
  virtual std::vector<kernels::Tensor*> history_buffers() = 0;
  virtual std::vector<kernels::Tensor*> carried_buffers() = 0;
  // What the next epoch reads kept packed, not as floats (a history stored in bf16, which
  // smoothing does not blend): a checkpoint saves these too, byte for byte.
  virtual std::vector<kernels::Buffer*> stored_buffers() { return {}; }
  // Each of the stage's graph layers' output rows after the last forward, in layer order.
  virtual std::vector<const kernels::Tensor*> layer_outputs() const = 0;

 protected:
  bool dropping() const { return training_ && model_.dropout > 0.0f; }
  void drop(MatrixView m, const Block& b, int layer) const;
  // dst = src with drop's mask (or a copy when not dropping), in one pass.
  void copy_dropped(ConstMatrixView src, MatrixView dst, const Block& b, int layer) const;
  // The same drop, for a fused pass to apply to its output (kernels::DropInto).
  kernels::DropInto drop_into(MatrixView dst, const Block& b, int layer) const;
  // A chunked training pass reads rows of later chunks from history, which the last
  // evaluation wrote without dropout: give them the mask this pass draws for their vertices,
  // so that they are what one process reads (in distribution) and the exact backward,
  // which applies every row's mask, is the gradient of the forward that read them.
  void drop_history(kernels::Tensor& p, int layer) const;
  // The features with this pass's input dropout (the stage holding layer 0 only).
  Features& dropped_features();
  // out = d loss / d P[b] for an aggregation Â P whose gradient on b's rows is grad: grad
  // is scattered through Âᵀ into g (columns() rows), the halo's share goes to its owners,
  // then b's rows are taken. They are complete once b's own backward has scattered (the
  // blocks that read them fresh ran backward before it); what reaches them later came along
  // edges read from history. One block of every row without a halo, dropping stale
  // gradients, multiplies straight into out.
  void propagate_back(kernels::Tensor& g, const Block& b, ConstMatrixView grad, MatrixView out);
  // propagate_back in two steps, so that a layer computes the rows that need nothing from
  // other parts while the owners' share travels: start_propagate scatters grad into g and
  // returns true, or (whole rows only) multiplies into out and returns false; then
  // take_propagated gives out = d loss / d P[piece] for each of b's pieces in turn
  // (BlockGraph::pieces, or b itself), waiting for the owners' share where it is needed.
  bool start_propagate(kernels::Tensor& g, const Block& b, ConstMatrixView grad, MatrixView out);
  void take_propagated(kernels::Tensor& g, const Block& b, const Block& piece, MatrixView out);
  // Whether every backward block is one block of every row, without a halo, dropping stale
  // gradients: then a layer's gradient needs no full-size accumulator (propagate_back
  // multiplies straight into its output), and nothing needs zeroing between epochs.
  bool whole_rows_only() const { return whole_rows_only_; }
  // Whether a pass's backward begins only once its every forward block has ended: one
  // block per pass, or a whole backward (StageSetup::whole_backward).
  bool forward_ends_before_backward() const { return !graph_.chunked() || whole_backward_; }
  // The accumulator g of a layer that reads `width` columns: none when whole_rows_only().
  kernels::Tensor gradient_buffer(std::int64_t width) const;
  // Delaying stale gradients: what g carries into a training pass, scaled by the weight.
  void carry_stale(kernels::Tensor& g) const;
  // out = g[b], and (delaying stale gradients) g[b] restarts at zero.
  void take_gradient(kernels::Tensor& g, const Block& b, MatrixView out) const;
  void zero(kernels::Tensor& t) const;
  void zero(MatrixView m) const;
  // A rows x cols view over one of the stage's scratch buffers, which only grow.
  MatrixView scratch(int which, std::int64_t rows, std::int64_t cols);
  kernels::Tensor tensor(std::int64_t rows, std::int64_t cols) const {
    return kernels::Tensor(backend_, rows, cols);
  }

  const kernels::Backend& backend_;
  ModelConfig model_;
  BlockGraph& graph_;
  Features* features_;
  StaleGrad stale_;
  float stale_weight_;
  Parameters parameters_;
  std::int64_t epoch_ = 0;
  bool training_ = false;

 private:
  bool whole_backward_;
  bool whole_rows_only_;
  std::vector<kernels::Buffer> scratch_;
};

inline MatrixView rows(kernels::Tensor& t, const Block& b) {
  return t.view().rows_range(b.begin, b.end);
}
inline ConstMatrixView rows(const kernels::Tensor& t, const Block& b) {
  return t.view().rows_range(b.begin, b.end);
}
// The rows of piece (BlockGraph::pieces of b) in m, a view over b's rows; m may be empty.
inline MatrixView piece_rows(MatrixView m, const Block& b, const Block& piece) {
  if (m.data == nullptr) return m;
  return m.rows_range(piece.begin - b.begin, piece.end - b.begin);
}
inline ConstMatrixView piece_rows(ConstMatrixView m, const Block& b, const Block& piece) {
  if (m.data == nullptr) return m;
  return m.rows_range(piece.begin - b.begin, piece.end - b.begin);
}
// Columns [begin, end) of a view (the two halves of a GCNII boundary row).
inline MatrixView columns(MatrixView m, std::int64_t begin, std::int64_t end) {
  return {m.data + begin, m.rows, end - begin, m.stride};
}
inline ConstMatrixView columns(ConstMatrixView m, std::int64_t begin, std::int64_t end) {
  return {m.data + begin, m.rows, end - begin, m.stride};
}

}  // namespace strata
