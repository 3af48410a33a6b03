#include "strata/pipeline/stage_passes.h"

namespace strata {
namespace {

std::span<const std::byte> bytes(ConstMatrixView m) {
  STRATA_CHECK(m.stride == m.cols, "stage transfer of a strided block");
  return {reinterpret_cast<const std::byte*>(m.data),
          static_cast<std::size_t>(m.rows * m.cols) * 4};
}
std::span<std::byte> bytes(MatrixView m) {
  STRATA_CHECK(m.stride == m.cols, "stage transfer of a strided block");
  return {reinterpret_cast<std::byte*>(m.data), static_cast<std::size_t>(m.rows * m.cols) * 4};
}

}  // namespace

double forward_pass(const StagePasses& passes, StageFlow& stage,
                    const std::vector<ChunkBlock>& blocks, const std::vector<int>& order,
                    bool training, const std::function<double(const ChunkBlock&)>& chunk_loss) {
  Communicator& pipe = passes.pipe;
  const int rank = pipe.rank();
  const bool last = rank + 1 == pipe.size();
  const int base = training ? 0 : 2 * passes.chunks;
  const CommCategory category = training ? CommCategory::kStageForward : CommCategory::kEval;
  std::vector<Request> receives, sends;
  if (rank > 0)
    for (int c : order)
      receives.push_back(
          pipe.irecv(rank - 1, base + c, bytes(stage.input_rows(blocks[c])), category));
  double loss = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const ChunkBlock& b = blocks[order[i]];
    if (rank > 0) pipe.wait(receives[i]);
    stage.forward(b);
    if (passes.trace) passes.trace->push_back({training ? 'f' : 'e', order[i]});
    if (!last)
      sends.push_back(pipe.isend(rank + 1, base + order[i], bytes(stage.output_rows(b)), category));
    else if (training)
      loss += chunk_loss(b);
  }
  pipe.wait_all(sends);
  return loss;
}

void backward_pass(const StagePasses& passes, StageFlow& stage,
                   const std::vector<ChunkBlock>& blocks, const std::vector<int>& order) {
  Communicator& pipe = passes.pipe;
  const int rank = pipe.rank();
  const bool last = rank + 1 == pipe.size();
  const int base = passes.chunks;
  std::vector<Request> receives, sends;
  if (!last)
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      receives.push_back(pipe.irecv(rank + 1, base + *it,
                                    bytes(stage.output_grad_rows(blocks[*it])),
                                    CommCategory::kStageBackward));
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int c = order[order.size() - 1 - i];
    const ChunkBlock& b = blocks[c];
    if (!last) pipe.wait(receives[i]);
    stage.backward(b);
    if (passes.trace) passes.trace->push_back({'b', c});
    if (rank > 0)
      sends.push_back(pipe.isend(rank - 1, base + c, bytes(stage.input_grad_rows(b)),
                                 CommCategory::kStageBackward));
  }
  stage.end_backward();
  pipe.wait_all(sends);
}

}  // namespace strata
