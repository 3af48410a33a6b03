// A chunked pipeline stage's history P kept in bf16 (ConvStage::stores_history): half its
// bytes, read by Â in bf16 and by the root and eps terms and the previous layer's ReLU a
// decoded slice at a time. Every value a layer reads is the stored, rounded one, so the
// backward is the exact gradient of the forward that read it.
#include "conv_stage.h"

namespace strata {

// Where a block's input rows (received, or the layer before's output) wait to be stored:
// rows the layer's aggregation of b writes next, at least the input's width, Z's where Z
// is kept in fp32, else the conv's output rows, which hold a stored Z (no narrower than
// the input). Nothing else reads them in between: Z, H and Y of b are last read by b's
// backward of the pass before, or (Y) are the next layer's rows of b, which only b's
// forward reads before writing them.
MatrixView ConvStage::arrival_rows(Layer& layer, const Block& b) {
  const int in = model_.width(layer.index);
  if (layer.z.rows() > 0) return rows(layer.z, b);
  return {conv_rows(layer, b).data, b.size(), in, in};
}

ConvStage::Layer* ConvStage::next_layer(const Layer& layer) {
  const auto j = static_cast<std::size_t>(layer.index - first_ + 1);
  return j < layers_.size() ? &layers_[j] : nullptr;
}

MatrixView ConvStage::output_of(Layer& layer, const Block& b) {
  Layer* next = next_layer(layer);
  return next != nullptr && next->history_stored() ? arrival_rows(*next, b) : rows(layer.y, b);
}

// The ReLU's mask from what the next layer stored where Y is not kept: the dropped Y
// rounded, whose zeros are Y's or dropout's (conv_stage.cpp's forward), and rounding keeps
// a positive value positive.
void ConvStage::relu_backward(Layer& layer, const Block& b, MatrixView grad_y) {
  Layer* next = next_layer(layer);
  if (next == nullptr || !next->history_stored()) {
    backend_.relu_backward(rows(layer.y, b), grad_y, grad_y);
    return;
  }
  for (const Block& s : slices(b)) {
    const MatrixView g = piece_rows(grad_y, b, s);
    backend_.relu_backward(history_slice(*next, s), g, g);
  }
}

MatrixView ConvStage::input_rows(const Block& b) {
  Layer& front = layers_.front();
  return front.history_stored() ? arrival_rows(front, b) : RowStage::input_rows(b);
}

// The received rows of b, dropped in place, become P's (the history of later passes).
void ConvStage::store_input(Layer& layer, const Block& b) {
  const MatrixView arrived = arrival_rows(layer, b);
  drop(arrived, b, layer.index);
  store_bf16(arrived, layer.p_bf16, b.begin);
}

Bf16RowsView ConvStage::stored_history(const Layer& layer) const {
  return {layer.p_bf16.as<std::uint16_t>(), graph_.columns(), model_.width(layer.index)};
}

MatrixView ConvStage::history_slice(Layer& layer, const Block& s) {
  return decode_slice(layer.p_bf16, s, model_.width(layer.index));
}

// Rows of a bf16 buffer (z_bf16, p_bf16) from row `begin` on, `rows.cols` values a row.
void ConvStage::store_bf16(ConstMatrixView rows, kernels::Buffer& packed, LocalId begin) const {
  backend_.encode_rows(
      rows, nullptr, rows.rows, RowCodec::kBf16, 0,
      packed.as<std::byte>() + begin * row_codec_bytes(RowCodec::kBf16, rows.cols));
}

MatrixView ConvStage::decode_slice(const kernels::Buffer& packed, const Block& s, int width) {
  const MatrixView x = scratch(kSlice, s.size(), width);
  backend_.decode_rows(packed.as<std::byte>() + s.begin * row_codec_bytes(RowCodec::kBf16, width),
                       RowCodec::kBf16, nullptr, s.size(), x, false);
  return x;
}

// Stage::drop_history on the stored rows: each slice decoded, dropped, stored again.
void ConvStage::drop_stored_history(Layer& layer) {
  if (!graph_.chunked() || !dropping()) return;
  for (const Block& s : slices({0, graph_.columns(), -1})) {
    const MatrixView x = history_slice(layer, s);
    drop(x, s, layer.index);
    store_bf16(x, layer.p_bf16, s.begin);
  }
}

void ConvStage::aggregate_input(Layer& layer, const Block& s, MatrixView out) {
  if (!layer.history_stored()) {
    aggregate_into(layer, s, layer.p.view(), out);
    return;
  }
  graph_.aggregate_bf16(s, stored_history(layer), out);
  if (!layer.eps) return;
  for_input_slices(layer, s, {}, [&](const Block& t, ConstMatrixView x) {
    backend_.axpy(layer.eps_value, x, piece_rows(out, s, t));
  });
}

}  // namespace strata
