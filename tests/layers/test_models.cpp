// Every registered model: its name, its parameters and the stages that hold them, sparse
// input computing what dense input does, and dropout keyed by (seed, epoch, layer, id).
#include "stage_test_util.h"

namespace strata {
namespace {
using namespace test;

constexpr ModelKind kModels[] = {ModelKind::kGcn, ModelKind::kGcnii, ModelKind::kSage,
                                 ModelKind::kGin, ModelKind::kGat};

ModelConfig config_of(ModelKind kind, int in, float dropout) {
  ModelConfig c{in, 6, 3, 3, dropout, true, 5};
  c.kind = kind;
  return c;
}

TEST_CASE("the registry finds every model by name", "[layers][models]") {
  for (ModelKind kind : kModels) CHECK(parse_model_kind(model_kind_name(kind)) == kind);
  CHECK(model_names() == "gcn, gcnii, sage, gin, gat");
  CHECK_THROWS_WITH(parse_model_kind("gatv2"),
                    "--model: unknown model 'gatv2' (available: gcn, gcnii, sage, gin, gat)");
}

TEST_CASE("stages partition the model's parameters in order", "[layers][models]") {
  for (ModelKind kind : kModels) {
    INFO(model_kind_name(kind));
    const ModelConfig c = config_of(kind, 5, 0.0f);
    const std::vector<TensorShape> shapes = parameter_shapes(c);
    CHECK(shapes.front().name == (kind == ModelKind::kGcnii ? "input.weight" : "conv1.weight"));
    CHECK(shapes.front().rows == 5);
    CHECK(shapes.back().cols == 3);
    std::size_t next = 0;
    for (int l = 0; l < c.num_layers; ++l) {
      const auto [begin, end] = stage_tensor_range(c, l, l + 1);
      CHECK(begin == next);
      CHECK(end > begin);
      for (std::size_t t = begin; t < end; ++t) CHECK(shapes[t].layer == l);
      next = end;
    }
    CHECK(next == shapes.size());
    const Matrix x = random_matrix(5, 5, 1);
    StageRun whole(c, 0, c.num_layers, hand_graph(), &x);
    CHECK(whole.parameters().count() == model_type(kind).shape(c, {5, 13}).parameters);
  }
}

// Logits and gradients of one training step, dense or sparse features, dropout on.
std::vector<float> one_step(ModelKind kind, int in, bool sparse) {
  Matrix x = random_matrix(5, in, 3);
  const Matrix r = random_matrix(5, 3, 4);
  for (float& v : x.storage()) v = std::abs(v) > 0.3f ? v : 0.0f;  // what sparse_part keeps
  StageRun run(config_of(kind, in, 0.5f), 0, 3, hand_graph(), &x, sparse);
  const ConstMatrixView logits = run.forward(true, 7);
  std::vector<float> all(logits.data, logits.data + logits.rows * logits.cols);
  for (float g : run.backward(r)) all.push_back(g);
  return all;
}

TEST_CASE("sparse features give the dense logits and gradients", "[layers][models]") {
  for (ModelKind kind : kModels)
    for (int in : {4, 9}) {  // GCN: aggregate-first and transform-first layer 0
      INFO(model_kind_name(kind) << ", " << in << " features");
      const std::vector<float> dense = one_step(kind, in, false);
      const std::vector<float> sparse = one_step(kind, in, true);
      REQUIRE(dense.size() == sparse.size());
      for (std::size_t i = 0; i < dense.size(); ++i)
        REQUIRE(sparse[i] == Approx(dense[i]).epsilon(1e-5).margin(1e-6));
    }
}

TEST_CASE("dropout is drawn from the epoch: same epoch same logits, others differ",
          "[layers][models]") {
  for (ModelKind kind : kModels) {
    const Matrix x = random_matrix(5, 4, 3);
    StageRun run(config_of(kind, 4, 0.5f), 0, 3, hand_graph(), &x);
    const auto copy = [](ConstMatrixView v) {
      return std::vector<float>(v.data, v.data + v.rows * v.cols);
    };
    const std::vector<float> a = copy(run.forward(true, 2)), b = copy(run.forward(true, 2));
    const std::vector<float> c = copy(run.forward(true, 3)), eval = copy(run.forward(false, 3));
    CHECK(a == b);
    CHECK(a != c);
    CHECK(c != eval);
    CHECK(eval == copy(run.forward(false, 9)));  // evaluation drops nothing
  }
}

std::vector<std::vector<float>> contents(const std::vector<const kernels::Tensor*>& tensors) {
  std::vector<std::vector<float>> out;
  for (const kernels::Tensor* t : tensors) out.emplace_back(t->data(), t->data() + t->size());
  return out;
}

// A chunked training pass reads later chunks' rows from history, which evaluation wrote
// without dropout. Each must carry the mask that the same vertex's fresh row gets in the
// same epoch (kept entries scaled by 1 / (1 - p)), or the exact backward, which applies
// that mask, would not be the gradient of what the forward read.
TEST_CASE("history rows read in a chunked pass carry that pass's dropout masks",
          "[layers][models]") {
  const float p = 0.5f;
  for (ModelKind kind : kModels) {
    // GAT transforms first: its history is P = [X W | s_src], which no mask on its rows
    // reproduces, so it keeps evaluation's values (as hybrid's transform-first layers).
    if (kind == ModelKind::kGat) continue;
    INFO(model_kind_name(kind));
    const Matrix x = random_matrix(5, 4, 3);
    ModelConfig wide = config_of(kind, 4, p);
    wide.hidden = 16;
    StageRun run(wide, 0, 3, hand_graph(), &x, false, true);
    run.set_biases(0.5f);  // fewer ReLU zeros, more masks to compare
    std::vector<const kernels::Tensor*> history;
    for (kernels::Tensor* t : run.stage().history_buffers()) history.push_back(t);
    run.forward(true, 5);
    const auto fresh = contents(history);  // the training pass's rows, dropped
    run.forward(false, 0);
    const auto eval = contents(history);
    run.stage().begin_epoch(5, true);
    const auto read = contents(history);
    int kept = 0, dropped = 0, fresh_kept = 0;
    for (std::size_t i = 0; i < history.size(); ++i)
      for (std::size_t e = 0; e < read[i].size(); ++e) {
        if (eval[i][e] == 0.0f) continue;  // ReLU: no mask to see
        // Where the fresh row kept a value (positive, and kept by its mask) the row read
        // must keep it too: the same mask (an independent one drops about p of them).
        if (fresh[i][e] != 0.0f) {
          CHECK(read[i][e] != 0.0f);
          ++fresh_kept;
        }
        if (read[i][e] != 0.0f) CHECK(read[i][e] == Approx(eval[i][e] / (1.0f - p)));
        ++(read[i][e] != 0.0f ? kept : dropped);
      }
    CHECK(kept > 20);
    CHECK(fresh_kept > 20);
    CHECK(dropped > 20);
  }
}

}  // namespace
}  // namespace strata
