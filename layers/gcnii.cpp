// GCNII (Chen et al. 2020): its parameters, shape and stage (gcnii_stage.h).
#include "gcnii_stage.h"
#include "model_types.h"

namespace strata {
namespace {

class Gcnii : public ModelType {
 public:
  const char* name() const override { return "gcnii"; }
  Propagation propagation() const override { return Propagation::kGcn; }
  int output_layer(const ModelConfig& c) const override { return c.num_layers + 1; }

  // The input linear layer (Glorot key 0) goes with conv 1, conv l's W has key l, the
  // output linear layer (key L + 1) goes with conv L.
  std::vector<TensorShape> parameters(const ModelConfig& c) const override {
    const int last = c.num_layers - 1;
    std::vector<TensorShape> shapes{{"input.weight", c.in_features, c.hidden, 0, 0},
                                    {"input.bias", 1, c.hidden, 0}};
    for (int l = 1; l <= c.num_layers; ++l)
      shapes.push_back({cat("conv", l, ".weight"), c.hidden, c.hidden, l - 1, l});
    shapes.push_back({"output.weight", c.hidden, c.classes, last, c.num_layers + 1});
    shapes.push_back({"output.bias", 1, c.classes, last});
    return shapes;
  }

  // Every conv exchanges width `hidden` both ways (conv 1's input h0 needs its gradient),
  // a stage boundary carries [h | h0], the linear layers fold into the first and last cost.
  ModelShape shape(const ModelConfig& c, const GraphSize& g) const override {
    ModelShape shape;
    shape.widths.assign(static_cast<std::size_t>(c.num_layers) + 1, c.hidden);
    const double n = static_cast<double>(g.nodes), h = c.hidden;
    for (int l = 0; l < c.num_layers; ++l) {
      shape.exchange_widths.push_back(c.hidden);
      shape.backward_exchange.push_back(true);
      shape.boundary_widths.push_back(2 * c.hidden);
      shape.costs.push_back(static_cast<double>(g.entries) * h + n * h * h);
    }
    shape.costs.front() += n * c.in_features * h * g.feature_density;
    shape.costs.back() += n * h * c.classes;
    for (const TensorShape& t : parameters(c)) shape.parameters += t.size();
    return shape;
  }

  // Per conv P (a later conv's is the last y without a halo), G (where one is kept) over the
  // columns and S, Y over the rows; h0; the first stage's G0 or the [h | h0] rows in and
  // back; the last stage's q, logits and their gradient or the [h | h0] rows out and back
  // (GcniiStage's constructor).
  std::int64_t stage_floats(const ModelConfig& c, int first, int last,
                            const StageRows& r) const override {
    const std::int64_t h = c.hidden;
    const std::int64_t per_conv = (r.whole_rows_only ? 1 : 2) * r.columns + 2 * r.owned;
    std::int64_t floats = per_conv * h * (last - first);
    if (!r.halo) floats -= r.owned * h * (last - first - 1);  // a later conv's P is the last y
    floats += r.owned * h;
    floats += first == 0 ? r.owned * h : 2 * r.owned * 2 * h;
    floats += last == c.num_layers ? r.owned * (h + 2 * c.classes) : 2 * r.owned * 2 * h;
    return floats;
  }

  std::int64_t stage_width(const ModelConfig& c, int, int) const override { return c.hidden; }
  std::int64_t scratch_floats(const ModelConfig& c, int, int, const StageRows&,
                              std::int64_t block) const override {
    return 3 * block * c.hidden;
  }
  bool multiplies_features(const ModelConfig&) const override { return true; }

  std::unique_ptr<Stage> make_stage(const StageSetup& setup, int first, int last) const override {
    return std::make_unique<GcniiStage>(setup, first, last);
  }
};

}  // namespace

const ModelType& gcnii_model_type() {
  static const Gcnii type;
  return type;
}

}  // namespace strata
