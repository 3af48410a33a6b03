// GCN (Kipf & Welling 2017): its parameters, shape and stage (conv_stage.h).
#include <algorithm>

#include "conv_stage.h"
#include "model_types.h"

namespace strata {
namespace {

class Gcn : public ModelType {
 public:
  const char* name() const override { return "gcn"; }
  Propagation propagation() const override { return Propagation::kGcn; }

  // conv l: W (Glorot keyed by l - 1) and, with bias, b (zeros).
  std::vector<TensorShape> parameters(const ModelConfig& c) const override {
    std::vector<TensorShape> shapes;
    for (int l = 0; l < c.num_layers; ++l) {
      const std::string conv = cat("conv", l + 1);
      shapes.push_back({conv + ".weight", c.width(l), c.width(l + 1), l, l});
      if (c.bias) shapes.push_back({conv + ".bias", 1, c.width(l + 1), l});
    }
    return shapes;
  }

  // Graph mode's product order (conv_stage.h): layer 0 passes no gradient to the features.
  ModelShape shape(const ModelConfig& c, const GraphSize& g) const override {
    ModelShape shape;
    for (int l = 0; l <= c.num_layers; ++l) shape.widths.push_back(c.width(l));
    for (int l = 0; l < c.num_layers; ++l) {
      const int a = c.width(l), b = c.width(l + 1), w = std::min(a, b);
      const bool first = ConvStage::aggregates_first(c, l, false);
      shape.exchange_widths.push_back(w);
      shape.backward_exchange.push_back(!first || l > 0);
      shape.boundary_widths.push_back(b);
      const double density = l == 0 ? g.feature_density : 1.0;
      shape.costs.push_back(static_cast<double>(g.entries) * w +
                            static_cast<double>(g.nodes) * a * b * density);
      shape.parameters += static_cast<std::int64_t>(a) * b + (c.bias ? b : 0);
    }
    return shape;
  }

  // Per layer P and G over the columns, Z and Y over the rows (ConvStage's constructor).
  std::int64_t stage_floats(const ModelConfig& c, int first, int last,
                            const StageRows& r) const override {
    std::int64_t floats = 0;
    for (int l = first; l < last; ++l) {
      const std::int64_t in = c.width(l), out = c.width(l + 1);
      const bool after = ConvStage::aggregates_first(c, l, r.reads_history);
      const std::int64_t exchanged = r.columns * (after ? in : out);
      floats += exchanged + (after || l > 0 ? r.owned * in : 0) + r.owned * out +
                (l > 0 || !after ? exchanged : 0);
    }
    if (first > 0) floats += 2 * r.owned * c.width(first);
    return floats + r.owned * c.width(last);
  }

  // The features (layer 0's input) get no gradient, and layer 0 exchanges or scatters the
  // narrower of its input and output, at most its output.
  std::int64_t stage_width(const ModelConfig& c, int first, int last) const override {
    std::int64_t width = 0;
    for (int l = std::max(first, 1); l <= last; ++l)
      width = std::max<std::int64_t>(width, c.width(l));
    return width;
  }
  int scratch_buffers() const override { return 3; }

  std::unique_ptr<Stage> make_stage(const StageSetup& setup, int first, int last) const override {
    return std::make_unique<ConvStage>(setup, first, last);
  }
};

}  // namespace

const ModelType& gcn_model_type() {
  static const Gcn type;
  return type;
}

}  // namespace strata
