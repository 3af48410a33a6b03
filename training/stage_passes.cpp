#include "strata/training/stage_passes.h"

namespace strata {
namespace {

// A blocking receive of the rows a neighbour stage sends, in the wire's format.
void receive(const StagePasses& passes, int peer, int tag, MatrixView rows, bool backward,
             CommCategory category) {
  passes.pipe.recv(peer, tag, passes.wire.incoming(rows, backward), category);
  passes.wire.arrived(rows, backward);
}

}  // namespace

// A chunk's rows are received just before it runs and sent as soon as it has run; the
// send is flushed, so that a communicator that holds posts back until a wait (NCCL)
// starts it now and the next stage can work on the chunk while this one runs the next.
double forward_pass(const StagePasses& passes, Stage& stage, const std::vector<Block>& blocks,
                    const std::vector<int>& order, bool training,
                    const std::function<double(const Block&)>& chunk_loss) {
  Communicator& pipe = passes.pipe;
  const int rank = pipe.rank();
  const bool last = rank + 1 == pipe.size();
  const int base = training ? 0 : 2 * passes.chunks;
  const CommCategory category = training ? CommCategory::kStageForward : CommCategory::kEval;
  std::vector<Request> sends;
  double loss = 0;
  for (const int c : order) {
    const Block& b = blocks[c];
    if (rank > 0) receive(passes, rank - 1, base + c, stage.input_rows(b), false, category);
    stage.forward(b);
    if (passes.trace) passes.trace->push_back({training ? 'f' : 'e', c});
    if (!last) {
      sends.push_back(pipe.isend(rank + 1, base + c,
                                 passes.wire.outgoing(stage.output_rows(b), false), category));
      pipe.flush();
    } else if (training) {
      loss += chunk_loss(b);
    }
  }
  pipe.wait_all(sends);
  return loss;
}

void backward_pass(const StagePasses& passes, Stage& stage, const std::vector<Block>& blocks,
                   const std::vector<int>& order) {
  Communicator& pipe = passes.pipe;
  const int rank = pipe.rank();
  const bool last = rank + 1 == pipe.size();
  const int base = passes.chunks;
  std::vector<Request> sends;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Block& b = blocks[*it];
    if (!last)
      receive(passes, rank + 1, base + *it, stage.output_grad_rows(b), true,
              CommCategory::kStageBackward);
    stage.backward(b);
    if (passes.trace) passes.trace->push_back({'b', *it});
    if (rank > 0) {
      sends.push_back(pipe.isend(rank - 1, base + *it,
                                 passes.wire.outgoing(stage.input_grad_rows(b), true),
                                 CommCategory::kStageBackward));
      pipe.flush();
    }
  }
  stage.end_backward();
  pipe.wait_all(sends);
}

}  // namespace strata
