// A later pipeline stage's input P stored in bf16 (ConvStage::stores_history): where the
// received rows are values bf16 holds exactly it changes nothing, over many slices, with
// dropout on the history, for every conv model's terms (GraphSAGE's root, GIN's learnt
// eps); it halves P's bytes; and the parameters' gradient is that of the rounded forward.
#include "conv_stage.h"
#include "stage_test_util.h"

namespace strata {
namespace {
using namespace test;

ModelConfig model_of(ModelKind kind, float dropout, int layers = 2) {
  ModelConfig c{3, 4, 2, layers, dropout, true, 11};
  c.kind = kind;
  c.learn_eps = kind == ModelKind::kGin;
  return c;
}

// Values in {-1, -0.5, 0, 0.5, 1}: bf16 holds them, and Â (0.5 and 0.25) of them, exactly.
Matrix dyadic_rows(LocalId n, int width) {
  Matrix m(n, width);
  for (std::int64_t i = 0; i < m.rows(); ++i)
    for (std::int64_t j = 0; j < width; ++j)
      m.at(i, j) = 0.5f * static_cast<float>((i * 7 + j * 3) % 5 - 2);
  return m;
}

struct Outcome {
  Matrix y, y_next;  // y_next: the next pass's first half, which reads the rest from history
  std::vector<float> grads, input_grads;
};

Matrix copied(ConstMatrixView m) {
  Matrix out(m.rows, m.cols);
  kernels::copy(m, out.view());
  return out;
}

// Sets GIN's eps to 0.5 (it starts at 0, which would hide the eps term).
void set_eps(StageRun& run) {
  std::vector<std::vector<float>> v = run.parameters().values_on_host();
  for (std::size_t t = 0; t < v.size(); ++t)
    if (run.parameters().shapes()[t].name.ends_with(".eps")) v[t] = {0.5f};
  run.parameters().set_values(v);
}

// The rows arrive once the pass has begun, as the pipeline's schedule sends them.
ConstMatrixView pass(StageRun& run, const Matrix& in) {
  run.stage().begin_epoch(0, true);
  kernels::copy(in.view(), run.stage().input_rows(run.every()));
  run.stage().forward(run.every());
  return run.stage().output_rows(run.every());
}

// Every weight 0.5 or -0.5 and every bias 0.5: with dyadic inputs over a dyadic graph, each
// layer's output has few enough bits for bf16 to hold it exactly.
void set_dyadic_weights(StageRun& run) {
  std::vector<std::vector<float>> v = run.parameters().values_on_host();
  for (std::size_t t = 0; t < v.size(); ++t)
    for (std::size_t i = 0; i < v[t].size(); ++i)
      v[t][i] = run.parameters().shapes()[t].name.ends_with(".bias") || i % 3 == 1 ? 0.5f : -0.5f;
  run.parameters().set_values(v);
}

// Stage [1, last) of the model, chunked (its layers read history), one training pass.
Outcome run_later_stage(const ModelConfig& model, const Csr& a, const Matrix& in, RowCodec storage,
                        int last = 2) {
  StageRun run(model, 1, last, a, nullptr, false, true, storage);
  run.set_biases(0.05f);
  if (last > 2) set_dyadic_weights(run);
  set_eps(run);
  Outcome out;
  out.y = copied(pass(run, in));
  out.grads = run.backward(random_matrix(a.rows, model.classes, 5));
  const ConstMatrixView g = run.stage().input_grad_rows(run.every());
  out.input_grads.assign(g.data, g.data + g.rows * g.cols);
  const Block half{0, a.rows / 2, 0};
  run.stage().begin_epoch(1, true);  // drops the history with epoch 1's masks
  kernels::copy(in.view().rows_range(0, half.end), run.stage().input_rows(half));
  run.stage().forward(half);
  out.y_next = copied(run.stage().output_rows(half));
  return out;
}

TEST_CASE("a stored history bf16 holds exactly changes nothing, over many slices",
          "[layers][history]") {
  const LocalId n = 3 * ConvStage::kSliceRows + 17;
  const Matrix in = dyadic_rows(n, 4);
  for (const ModelKind kind : {ModelKind::kGcn, ModelKind::kSage, ModelKind::kGin}) {
    for (const float dropout : {0.0f, 0.5f}) {  // 0.5: a kept value doubles, exactly
      INFO(model_kind_name(kind) << " dropout " << dropout);
      const ModelConfig model = model_of(kind, dropout);
      const Outcome fp32 = run_later_stage(model, dyadic_graph(n), in, RowCodec::kFloat32);
      const Outcome bf16 = run_later_stage(model, dyadic_graph(n), in, RowCodec::kBf16);
      CHECK(bf16.y.storage() == fp32.y.storage());
      CHECK(bf16.grads == fp32.grads);
      CHECK(bf16.input_grads == fp32.input_grads);
      CHECK(bf16.y_next.storage() == fp32.y_next.storage());
    }
  }
}

// Layer 2's P is layer 1's Y, dropped: stored, layer 1's output rows of a block wait in
// layer 2's arrival rows and its ReLU reads its mask from the stored rows.
TEST_CASE("a stage of two layers stores both histories, bf16-exact values changing nothing",
          "[layers][history]") {
  const LocalId n = 3 * ConvStage::kSliceRows + 17;
  const Matrix in = dyadic_rows(n, 4);
  for (const ModelKind kind : {ModelKind::kGcn, ModelKind::kSage}) {
    for (const float dropout : {0.0f, 0.5f}) {
      INFO(model_kind_name(kind) << " dropout " << dropout);
      const ModelConfig model = model_of(kind, dropout, 3);
      const Outcome fp32 = run_later_stage(model, dyadic_graph(n), in, RowCodec::kFloat32, 3);
      const Outcome bf16 = run_later_stage(model, dyadic_graph(n), in, RowCodec::kBf16, 3);
      CHECK(bf16.y.storage() == fp32.y.storage());
      CHECK(bf16.grads == fp32.grads);
      CHECK(bf16.input_grads == fp32.input_grads);
      CHECK(bf16.y_next.storage() == fp32.y_next.storage());
    }
  }
  StageRun run(model_of(ModelKind::kGcn, 0.0f, 3), 1, 3, hand_graph(), nullptr, false, true,
               RowCodec::kBf16);
  CHECK(run.stage().stored_buffers().size() == 2);
  CHECK(run.stage().history_buffers().empty());
}

TEST_CASE("a later chunked stage keeps its input in bf16, half the bytes, not as floats",
          "[layers][history]") {
  const ModelConfig model = model_of(ModelKind::kGcn, 0.0f);
  StageRun stored(model, 1, 2, hand_graph(), nullptr, false, true, RowCodec::kBf16);
  REQUIRE(stored.stage().stored_buffers().size() == 1);
  CHECK(stored.stage().stored_buffers()[0]->bytes() == 5 * 4 * 2);
  CHECK(stored.stage().history_buffers().empty());
  StageRun unchunked(model, 1, 2, hand_graph(), nullptr, false, false, RowCodec::kBf16);
  CHECK(unchunked.stage().stored_buffers().empty());  // no history: P as received
  StageRun fp32(model, 1, 2, hand_graph(), nullptr, false, true, RowCodec::kFloat32);
  CHECK(fp32.stage().stored_buffers().empty());
  CHECK(fp32.stage().history_buffers().size() == 1);
}

// The forward multiplies the rounded rows; the backward must be its gradient. (Not GIN,
// whose Z is stored in bf16 too, nor a history within the stage, the rounded output of
// the layer before: a small step of a parameter is rounded away there.)
TEST_CASE("with a stored history the parameters' gradient is the rounded forward's",
          "[layers][history]") {
  for (const ModelKind kind : {ModelKind::kGcn, ModelKind::kSage}) {
    INFO(model_kind_name(kind));
    const ModelConfig model = model_of(kind, 0.0f);
    StageRun run(model, 1, 2, hand_graph(), nullptr, false, true, RowCodec::kBf16);
    run.set_biases(0.05f);
    const Matrix in = random_matrix(5, 4, 7), r = random_matrix(5, 2, 6);
    const auto objective = [&] { return dot(pass(run, in), r); };
    objective();
    const std::vector<float> analytic = run.backward(r);
    check_gradient(run.values(), analytic, objective, 1e-3f);
  }
}

}  // namespace
}  // namespace strata
