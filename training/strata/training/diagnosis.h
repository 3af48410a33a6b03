// --diagnose (pipeline mode): how far a chunked training step is from the exact one. After
// the chunked step's backward, the same step is taken exactly (one block of every row, the
// same weights and dropout masks), and the two are compared: the gradients (their dot
// product and norms, for the cosine between them) and every layer's output rows (the
// relative error the history put into them). The chunked step's gradients and carried
// buffers are then restored, so training goes on as without the diagnosis.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/layers/stage.h"
#include "strata/training/stage_passes.h"
#include "strata/training/train_config.h"

namespace strata {

// One stage's share of the comparison, to be summed over stages.
struct Diagnosis {
  double dot = 0, chunked_norm2 = 0, exact_norm2 = 0;  // of the gradients
  double exact_loss = 0;                               // the last stage's share
  // Per graph layer of the whole model: |Y_chunked - Y_exact|² and |Y_exact|².
  std::vector<double> error2, norm2;
};

struct ExactPass {
  const StagePasses& passes;
  const std::vector<Block>& whole;  // one block of every row
  int first_layer = 0;              // the stage's first graph layer
  int layers = 0;                   // of the whole model
  std::function<double(const Block&)> chunk_loss;
  std::function<void()> reduce_gradients;  // over the stage's parts, then to floats
};

// Collective over the pipe (every stage runs it in the same epoch, after its backward).
Diagnosis compare_with_exact(Stage& stage, const kernels::Backend& backend, const ExactPass& exact,
                             std::int64_t epoch);

// Sums every stage's diagnosis over comm (the whole job) and writes the cosine and each
// layer's relative error into m. Collective.
void report_diagnosis(Communicator& comm, const Diagnosis& mine, EpochMetrics& m);

}  // namespace strata
