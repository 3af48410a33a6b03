// The two passes of a pipeline epoch over one rank's stage, whatever memory the stage
// keeps its rows in: forward runs the chunks in `order`, receiving each chunk's input rows
// from the previous stage and sending its output rows to the next; backward runs them in
// reverse order, with gradient rows flowing the other way. Each chunk is sent as soon as
// it is computed, so stage s works on chunk c while stage s - 1 works on c + 1.
#pragma once
#include <functional>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/layers/stage.h"
#include "strata/training/stage_wire.h"

namespace strata {

// One step of a stage, as the schedule ran it (tests read these).
struct ScheduleEvent {
  char pass;  // 'f' training forward, 'b' backward, 'e' evaluation forward
  int chunk;
  bool operator==(const ScheduleEvent&) const = default;
};

struct StagePasses {
  Communicator& pipe;  // rank = stage; over the memory the stage's views point into
  int chunks;          // of the layout: tags are chunk c forward, K + c backward, 2K evaluation
  StageWire& wire;     // how rows travel (float32 ones as they are)
  std::vector<ScheduleEvent>* trace = nullptr;  // records each step when set
};

// The last stage adds chunk_loss(b) for each block in training; the sum is returned.
double forward_pass(const StagePasses& passes, Stage& stage, const std::vector<Block>& blocks,
                    const std::vector<int>& order, bool training,
                    const std::function<double(const Block&)>& chunk_loss);
// Backward of every block in reverse order, then stage.end_backward().
void backward_pass(const StagePasses& passes, Stage& stage, const std::vector<Block>& blocks,
                   const std::vector<int>& order);

}  // namespace strata
