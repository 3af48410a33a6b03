// What a rank's trainer keeps in a backend's memory besides its stage, and how it checks
// and saves it: labels and masks, the NaN check of a step, and the checkpoint sections of
// parameters, Adam's moments and the stage's carried tensors.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/core/sections.h"
#include "strata/kernels/backend.h"
#include "strata/layers/adam.h"
#include "strata/layers/parameters.h"
#include "strata/training/numeric_guard.h"

namespace strata {

// A stage's labels and train, val and test masks over its owned rows, in layout order,
// and how many rows each mask holds.
struct StageLabels {
  std::vector<std::int32_t> labels;
  std::array<std::vector<std::uint8_t>, 3> masks;
  std::array<double, 3> counts{};
};

// StageLabels copied to the backend once.
struct LabelsOnBackend {
  kernels::Buffer labels;
  std::array<kernels::Buffer, 3> masks;
  LabelsOnBackend(const kernels::Backend& backend, const StageLabels& host);
  const std::int32_t* labels_at(std::int64_t row) const { return labels.as<std::int32_t>() + row; }
  const std::uint8_t* mask_at(int mask, std::int64_t row) const {
    return masks[static_cast<std::size_t>(mask)].as<std::uint8_t>() + row;
  }
};

// Whether every value of m is finite, from its column sums (NaN and inf survive a sum;
// only a sum past float's range, 3.4e38, would be a false alarm).
bool backend_all_finite(const kernels::Backend& backend, ConstMatrixView m);

// numeric_guard's step_is_finite over a host copy of the float gradients (the model's
// size, small). The gradients, sizes and names of step are filled in here.
bool step_is_finite(Communicator& comm, OnNan on_nan, std::int64_t epoch, StepValues step,
                    const Parameters& parameters);

// The parameters' values, then Adam's step and moments, tensor by tensor.
void save_parameters(SectionWriter& out, const Parameters& parameters, const Adam& adam);
void load_parameters(SectionReader& in, Parameters& parameters, Adam& adam);
// Tensors as float sections; loading reads exactly their sizes.
void save_tensors(SectionWriter& out, const kernels::Backend& backend,
                  const std::vector<kernels::Tensor*>& tensors);
void load_tensors(SectionReader& in, const kernels::Backend& backend,
                  const std::vector<kernels::Tensor*>& tensors);
// Packed buffers (Stage::stored_buffers) as byte sections, loaded at exactly their sizes.
void save_buffers(SectionWriter& out, const kernels::Backend& backend,
                  const std::vector<kernels::Buffer*>& buffers);
void load_buffers(SectionReader& in, const kernels::Backend& backend,
                  const std::vector<kernels::Buffer*>& buffers);

}  // namespace strata
