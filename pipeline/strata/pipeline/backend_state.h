// Pieces the trainers on a kernels::Backend share (backend_trainer.h, the backend pipeline
// schedule): labels and masks in backend memory, the NaN check of a step whose gradients
// live there, and the checkpoint record of flat parameters and Adam's moments.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/core/sections.h"
#include "strata/kernels/backend.h"
#include "strata/layers/backend_model.h"
#include "strata/pipeline/numeric_guard.h"

namespace strata {

// Per-row labels and the train, val and test masks, copied to the backend once.
struct LabelsOnBackend {
  kernels::Buffer labels;
  std::array<kernels::Buffer, 3> masks;
  LabelsOnBackend(const kernels::Backend& backend, const std::vector<std::int32_t>& labels,
                  const std::array<const std::vector<std::uint8_t>*, 3>& masks);
  const std::int32_t* labels_at(std::int64_t row) const { return labels.as<std::int32_t>() + row; }
  const std::uint8_t* mask_at(int mask, std::int64_t row) const {
    return masks[static_cast<std::size_t>(mask)].as<std::uint8_t>() + row;
  }
};

// Whether every value of m is finite, from its column sums (NaN and inf survive a sum;
// only a sum past float's range, 3.4e38, would be a false alarm).
bool backend_all_finite(const kernels::Backend& backend, ConstMatrixView m);

// numeric_guard's step_is_finite over host copies of the gradients (the model's size,
// small). step.parameters is filled here; the rest of step is the caller's.
bool backend_step_is_finite(Communicator& control, OnNan on_nan, std::int64_t epoch,
                            StepValues step, const FlatParameters& parameters);

// The parameters' values, then Adam's step and moments, tensor by tensor.
void save_backend_parameters(SectionWriter& out, const FlatParameters& parameters,
                             const BackendAdam& adam);
void load_backend_parameters(SectionReader& in, FlatParameters& parameters, BackendAdam& adam);

}  // namespace strata
