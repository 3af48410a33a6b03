// GAT (Velickovic et al. 2018, as PyG's GATConv): the model's shape for the plan and its
// stage (gat_stage.h). Every layer transforms first and exchanges P = [H | s_src] both
// ways, layer 0 too (its weight's gradient needs every column's d H).
#include <algorithm>

#include "gat_stage.h"
#include "model_types.h"

namespace strata {
namespace {

// Glorot keys of the attention vectors, apart from those of the layers' weights (l).
constexpr std::int32_t kSourceKeys = 3 << 20;
constexpr std::int32_t kTargetKeys = 4 << 20;

class GatModel : public ModelType {
 public:
  const char* name() const override { return "gat"; }
  Propagation propagation() const override { return Propagation::kSum; }
  bool reads_entries() const override { return true; }

  std::vector<TensorShape> parameters(const ModelConfig& c) const override {
    std::vector<TensorShape> shapes;
    for (int l = 0; l < c.num_layers; ++l) {
      const std::string conv = cat("conv", l + 1);
      const int k = GatStage::heads(c, l), f = GatStage::head_width(c, l);
      shapes.push_back({conv + ".weight", c.width(l), std::int64_t{k} * f, l, l});
      shapes.push_back({conv + ".att_src", k, f, l, kSourceKeys + l});
      shapes.push_back({conv + ".att_dst", k, f, l, kTargetKeys + l});
      if (c.bias) shapes.push_back({conv + ".bias", 1, c.width(l + 1), l});
    }
    return shapes;
  }

  // Per layer: X W, then per entry and head a score, its softmax and the weighted rows.
  ModelShape shape(const ModelConfig& c, const GraphSize& g) const override {
    ModelShape shape;
    for (int l = 0; l <= c.num_layers; ++l) shape.widths.push_back(c.width(l));
    for (int l = 0; l < c.num_layers; ++l) {
      const int k = GatStage::heads(c, l), h = k * GatStage::head_width(c, l);
      shape.exchange_widths.push_back(GatStage::exchanged_width(c, l));
      shape.backward_exchange.push_back(true);
      shape.boundary_widths.push_back(c.width(l + 1));
      const double density = l == 0 ? g.feature_density : 1.0;
      shape.costs.push_back(static_cast<double>(g.entries) * (h + 4.0 * k) +
                            static_cast<double>(g.nodes) * c.width(l) * h * density);
    }
    for (const TensorShape& t : parameters(c)) shape.parameters += t.size();
    return shape;
  }

  // Per layer P and G over the columns, the destination scores, the dropped input (l > 0)
  // and Y over the rows, the attention weights per entry (GatStage::make_layer).
  std::int64_t stage_floats(const ModelConfig& c, int first, int last,
                            const StageRows& r) const override {
    std::int64_t floats = 0;
    for (int l = first; l < last; ++l) {
      const std::int64_t k = GatStage::heads(c, l), exchanged = GatStage::exchanged_width(c, l);
      floats += 2 * r.columns * exchanged + r.owned * k + r.entries * k + r.owned * c.width(l + 1);
      if (l > 0) floats += r.owned * c.width(l);
    }
    if (first > 0) floats += 2 * r.owned * c.width(first);
    return floats + r.owned * c.width(last);
  }

  std::int64_t stage_width(const ModelConfig& c, int first, int last) const override {
    std::int64_t width = 0;
    for (int l = first; l < last; ++l)
      width = std::max<std::int64_t>(width, GatStage::exchanged_width(c, l));
    for (int l = std::max(first, 1); l <= last; ++l)
      width = std::max<std::int64_t>(width, c.width(l));
    return width;
  }

  // GatStage::backward's scratch: d loss / d Y in two buffers, the heads' gradient of a
  // mean, d z per entry, d s_dst, d P, the mean's heads; layer 0's H over every row.
  std::int64_t scratch_floats(const ModelConfig& c, int first, int last, const StageRows& r,
                              std::int64_t block) const override {
    std::int64_t grad[2] = {block * c.width(last), 0}, heads = 0, per_entry = 0, dst = 0, p = 0;
    const std::int64_t entries = r.owned > 0 ? r.entries * block / r.owned : 0;
    for (int l = first; l < last; ++l) {
      const std::int64_t k = GatStage::heads(c, l), h = k * GatStage::head_width(c, l);
      if (!GatStage::concatenates(c, l)) heads = std::max(heads, 2 * block * h);
      per_entry = std::max(per_entry, entries * k);
      dst = std::max(dst, block * k);
      p = std::max(p, block * GatStage::exchanged_width(c, l));
      if (l > first) grad[1] = std::max(grad[1], block * c.width(l));
    }
    const std::int64_t first_h =
        first == 0 ? r.owned * GatStage::heads(c, 0) * GatStage::head_width(c, 0) : 0;
    return grad[0] + grad[1] + heads + per_entry + dst + p + first_h;
  }

  bool multiplies_features(const ModelConfig&) const override { return true; }

  std::unique_ptr<Stage> make_stage(const StageSetup& setup, int first, int last) const override {
    return std::make_unique<GatStage>(setup, first, last);
  }
};

}  // namespace

const ModelType& gat_model_type() {
  static const GatModel type;
  return type;
}

}  // namespace strata
