#include "conv_model.h"

#include <algorithm>

#include "conv_stage.h"

namespace strata {
namespace {

// Glorot keys of the root weights and of GIN's W2, apart from those of the layers' own
// weights (l).
constexpr std::int32_t kRootKeys = 1 << 20;
constexpr std::int32_t kMlpKeys = 2 << 20;

}  // namespace

// conv l + 1: W (Glorot keyed by l), with bias b (zeros), with a root weight W_root, with
// an MLP's second layer W2 and b2 and (learnt) eps, which starts at 0 (PyG's GINConv).
std::vector<TensorShape> ConvModel::parameters(const ModelConfig& c) const {
  std::vector<TensorShape> shapes;
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string conv = cat("conv", l + 1);
    const int in = c.width(l), mid = ConvStage::conv_width(c, l), out = c.width(l + 1);
    shapes.push_back({conv + ".weight", in, mid, l, l});
    if (c.bias) shapes.push_back({conv + ".bias", 1, mid, l});
    if (form_.root_weight) shapes.push_back({conv + ".root_weight", in, out, l, kRootKeys + l});
    if (!form_.mlp) continue;
    shapes.push_back({conv + ".mlp.weight", mid, out, l, kMlpKeys + l});
    if (c.bias) shapes.push_back({conv + ".mlp.bias", 1, out, l});
    if (c.learn_eps) shapes.push_back({conv + ".eps", 1, 1, l});
  }
  return shapes;
}

// Graph mode's product order (conv_stage.h): layer 0 passes no gradient to the features.
ModelShape ConvModel::shape(const ModelConfig& c, const GraphSize& g) const {
  ModelShape shape;
  for (int l = 0; l <= c.num_layers; ++l) shape.widths.push_back(c.width(l));
  const int weights = form_.root_weight ? 2 : 1;
  for (int l = 0; l < c.num_layers; ++l) {
    const int a = c.width(l), m = ConvStage::conv_width(c, l), b = c.width(l + 1);
    const int w = std::min(a, m);
    shape.exchange_widths.push_back(w);
    shape.backward_exchange.push_back(!ConvStage::aggregates_first(c, l, false) || l > 0);
    shape.boundary_widths.push_back(b);
    const double density = l == 0 ? g.feature_density : 1.0;
    const double mlp = form_.mlp ? static_cast<double>(g.nodes) * m * b : 0.0;
    shape.costs.push_back(static_cast<double>(g.entries) * w +
                          static_cast<double>(g.nodes) * a * m * density * weights + mlp);
  }
  for (const TensorShape& t : parameters(c)) shape.parameters += t.size();
  return shape;
}

// Per layer P and G (the gradient accumulator, where one is kept) over the columns, Z and
// Y over the rows; the first layer's root term and its gradient over the rows
// (ConvStage::make_layer). Shared (ConvStage::shares_memory): P0 lies in the scratch, a
// later layer's Z (transform first) or P (aggregate first, no halo) is the previous Y, G
// lies in P with a halo (without a root weight; delayed stale gradients are not counted)
// or, aggregating first, in the gradients' buffer (ConvStage::g_in_grads), and then P
// holds the previous Y; a recomputing layer keeps no Z. GIN's layers hold H over the rows
// too; a learnt eps keeps P0 out of the scratch. A later stage receives its input in its
// first layer's P (or Z). The stage's output and input gradients: ConvStage::GradHome.
std::int64_t ConvModel::stage_floats(const ModelConfig& c, int first, int last,
                                     const StageRows& r) const {
  const ConvStage::GradHome home = ConvStage::grad_home(c, form_, first, last, r);
  std::int64_t floats = 0;
  for (int l = first; l < last; ++l) {
    const std::int64_t in = c.width(l), mid = ConvStage::conv_width(c, l), out = c.width(l + 1);
    const bool after = ConvStage::aggregates_first(c, l, r.reads_history);
    const std::int64_t exchanged = r.columns * (after ? in : mid);
    const bool accumulator = l > 0 ? !r.whole_rows_only &&
                                         !(r.shares && r.halo && !form_.root_weight) &&
                                         !ConvStage::g_in_grads(c, l, home, r)
                                   : !after;
    const bool eps = learns_eps(c);
    const bool p0_in_scratch = r.forward_ends_first() && l == 0 && !eps;
    const bool p_shared = p0_in_scratch || (l > first && after && !r.halo);
    const bool p_stored = ConvStage::stores_history(l, first, r);  // 2 bytes a value
    const ConvStage::KeptZ kept = ConvStage::kept_z(c, form_, l, r);
    const bool z_kept = (after || l > 0) && !(r.forward_ends_first() && l > first && !after) &&
                        kept != ConvStage::KeptZ::kRecomputed;
    const std::int64_t z_floats =
        kept == ConvStage::KeptZ::kBf16 ? (r.owned * in + 1) / 2 : r.owned * in;  // 2 bytes a value
    const std::int64_t z = z_kept ? z_floats : 0;
    const bool y_in_next_p =  // or, where the next layer stores its P, nowhere whole
        l + 1 < last &&
        (ConvStage::g_in_grads(c, l + 1, home, r) || ConvStage::stores_history(l + 1, first, r));
    const std::int64_t p = p_stored ? (exchanged + 1) / 2 : p_shared ? 0 : exchanged;
    floats += p + z + (y_in_next_p ? 0 : r.owned * out) + (accumulator ? exchanged : 0);
    if (form_.mlp) floats += r.owned * mid;
    if (form_.root_weight && l == 0) floats += 2 * r.owned * out;
  }
  if (home == ConvStage::GradHome::kOwn)
    return floats + ConvStage::grads_floats(c, first, last, home, r);
  if (home == ConvStage::GradHome::kOverFirstInput) return floats;  // (scratch_floats)
  if (first > 0) floats += r.owned * c.width(first);  // d loss / d input (received in P or Z)
  return floats + r.owned * c.width(last);
}

// ConvStage::backward: d loss / d Y alternates between two buffers (the second holds P0
// when shared) where ConvStage::GradHome is kAlternating, else lies in P0's (counted here)
// or a buffer of the stage's own (stage_floats); plus d loss / d P or the Âᵀ product's
// input (over Z where Z is kept in fp32), GIN's d loss / d H, and a recomputed or decoded
// Z's slice. Layer 0's eps gradient reads an Âᵀ input of its own.
std::int64_t ConvModel::scratch_floats(const ModelConfig& c, int first, int last,
                                       const StageRows& r, std::int64_t block) const {
  // The first d loss / d Y is the stage's output gradient itself (RowStage::output_grad_).
  std::int64_t grad[2] = {0, 0}, to_z = 0, to_p = 0, slice = 0, to_h = 0;
  const bool eps = learns_eps(c);
  const ConvStage::GradHome home = ConvStage::grad_home(c, form_, first, last, r);
  int buffer = 0;
  for (int l = last - 1; l >= first; --l) {
    const bool after = ConvStage::aggregates_first(c, l, r.reads_history);
    if (form_.mlp) to_h = std::max(to_h, block * ConvStage::conv_width(c, l));
    if (l == 0) {
      if (after && eps) to_z = std::max(to_z, block * c.width(0));
      continue;
    }
    const bool z_scratch = ConvStage::kept_z(c, form_, l, r) != ConvStage::KeptZ::kFloat32 &&
                           !ConvStage::ys_hold_grad_z(c, l, last, r, false);
    if (after && z_scratch) to_z = std::max(to_z, block * c.width(l));  // else over Z or Y
    if (!after) to_p = std::max(to_p, block * ConvStage::conv_width(c, l));
    if (home != ConvStage::GradHome::kAlternating) continue;  // over the stage's own (above)
    buffer ^= 1;
    if (l > first) grad[buffer] = std::max(grad[buffer], block * c.width(l));
  }
  if (r.forward_ends_first() && first == 0 && !eps) {  // P0, and GradHome kOverFirstInput
    const bool after = ConvStage::aggregates_first(c, 0, r.reads_history);
    grad[1] = std::max({grad[1], r.columns * (after ? c.width(0) : ConvStage::conv_width(c, 0)),
                        ConvStage::grads_floats(c, first, last, home, r)});
  }
  for (int l = first; l < last; ++l)  // a recomputed or decoded Z, a slice at a time
    if (ConvStage::kept_z(c, form_, l, r) != ConvStage::KeptZ::kFloat32)
      slice = std::max(slice, std::min(block, std::int64_t{ConvStage::kSliceRows}) * c.width(l));
  for (int l = first; l < last; ++l)  // a stored P decoded (dropped whole at a pass's start)
    if (ConvStage::stores_history(l, first, r))
      slice =
          std::max(slice, std::min(r.columns, std::int64_t{ConvStage::kSliceRows}) * c.width(l));
  return grad[0] + grad[1] + to_z + to_p + to_h + slice;
}

bool ConvModel::multiplies_features(const ModelConfig& c) const {
  return form_.root_weight || !ConvStage::aggregates_first(c, 0, false);
}

// The features (layer 0's input) get no gradient, and layer 0 exchanges or scatters the
// narrower of its input and output, at most its output.
std::int64_t ConvModel::stage_width(const ModelConfig& c, int first, int last) const {
  std::int64_t width = 0;
  for (int l = std::max(first, 1); l <= last; ++l)
    width = std::max<std::int64_t>(width, c.width(l));
  for (int l = first; l < last && form_.mlp; ++l)  // GIN exchanges its conv's rows
    width = std::max<std::int64_t>(width, ConvStage::conv_width(c, l));
  return width;
}

std::unique_ptr<Stage> ConvModel::make_stage(const StageSetup& setup, int first, int last) const {
  return std::make_unique<ConvStage>(setup, first, last, form_);
}

}  // namespace strata
