#include "strata/store/weights_file.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "strata/core/sections.h"

namespace strata {
namespace {

constexpr char kMagic[] = "STRATAWT";
constexpr std::uint32_t kVersion = 1;

// The sizes a file's model must match: kind, in, hidden, classes, layers, bias.
std::array<std::int64_t, 6> model_key(const ModelConfig& m) {
  return {m.kind == ModelKind::kGcn ? 0 : 1,
          m.in_features,
          m.hidden,
          m.classes,
          m.num_layers,
          m.bias ? 1 : 0};
}

std::string describe_key(const std::array<std::int64_t, 6>& k) {
  return cat(k[0] == 0 ? "gcn" : "gcnii", " with ", k[4], " layers, ", k[1],
             " input features, hidden ", k[2], ", ", k[3], " classes", k[5] ? "" : ", no bias");
}

}  // namespace

void check_weights(const ModelConfig& model, const Weights& weights, const std::string& source) {
  const std::vector<TensorShape> shapes = parameter_shapes(model);
  STRATA_REQUIRE(weights.size() == shapes.size(), source, ": ", weights.size(),
                 " tensors, the model has ", shapes.size());
  for (std::size_t t = 0; t < shapes.size(); ++t) {
    STRATA_REQUIRE(static_cast<std::int64_t>(weights[t].size()) == shapes[t].size(), source, ": ",
                   shapes[t].name, " has ", weights[t].size(), " values, the model's is ",
                   shapes[t].rows, " x ", shapes[t].cols);
    for (std::size_t i = 0; i < weights[t].size(); ++i)
      STRATA_REQUIRE(std::isfinite(weights[t][i]), source, ": ", shapes[t].name, "[", i,
                     "] is not finite (", weights[t][i], ")");
  }
}

void write_weights_file(const std::string& path, const ModelConfig& model, const Weights& weights) {
  check_weights(model, weights, "weights to write to '" + path + "'");
  const std::vector<TensorShape> shapes = parameter_shapes(model);
  SectionWriter w(kMagic, kVersion);
  w.section<std::int64_t>(model_key(model));
  for (std::size_t t = 0; t < shapes.size(); ++t) {
    w.section<char>(shapes[t].name);
    w.section<std::int64_t>(std::array<std::int64_t, 2>{shapes[t].rows, shapes[t].cols});
    w.section<float>(weights[t]);
  }
  const std::vector<std::byte> bytes = w.take();
  write_file_atomically(path, bytes);
}

Weights read_weights_file(const std::string& path, const ModelConfig& model) {
  const std::vector<std::byte> bytes = read_file(path);
  SectionReader r(bytes, path, kMagic, kVersion);
  const auto key = r.section<std::int64_t>("model", 6);
  const auto expected = model_key(model);
  STRATA_REQUIRE(std::equal(key.begin(), key.end(), expected.begin()), path, ": weights of a ",
                 describe_key({key[0], key[1], key[2], key[3], key[4], key[5]}),
                 "; this model is a ", describe_key(expected));
  Weights weights;
  for (const TensorShape& shape : parameter_shapes(model)) {
    const auto name = r.section_up_to<char>("tensor name", 256);
    STRATA_REQUIRE(std::string(name.begin(), name.end()) == shape.name, path, ": tensor '",
                   std::string(name.begin(), name.end()), "' where ", shape.name, " belongs");
    const auto dims = r.section<std::int64_t>("tensor shape", 2);
    STRATA_REQUIRE(dims[0] == shape.rows && dims[1] == shape.cols, path, ": ", shape.name, " is ",
                   dims[0], " x ", dims[1], ", expected ", shape.rows, " x ", shape.cols);
    weights.push_back(
        r.section<float>(shape.name.c_str(), static_cast<std::uint64_t>(shape.size())));
  }
  r.expect_end();
  check_weights(model, weights, path);
  return weights;
}

}  // namespace strata
