// One rank's place in a job of S stages x G parts (job rank r is stage r / G, part r % G)
// and its communicators: on the host (metrics, the NaN agreement, the weights gather) and
// their twins over the backend's memory (stage rows, halo rows, gradients). Every mode is
// such a grid: local 1 x 1, graph 1 x P, pipeline P x 1, hybrid S x G.
#pragma once
#include <functional>
#include <memory>

#include "strata/comm/communicator.h"
#include "strata/kernels/backend.h"

namespace strata {

// Makes the communicator over a backend's memory that shadows a host one (the same
// ranks): NCCL or device staging on a GPU. nullptr, or a function returning nullptr: the
// host communicator itself serves (the CPU backend).
using DataCommunicator = std::function<std::unique_ptr<Communicator>(Communicator& host)>;

// Where a rank's tensors live and how they travel.
struct Device {
  const kernels::Backend& backend;
  DataCommunicator to_data;
};
// The CPU backend, with the host communicators.
const Device& cpu_device();

class RankGrid {
 public:
  // Collective over job (the splits); job.size() must be a multiple of parts.
  RankGrid(Communicator& job, int parts, const DataCommunicator& to_data);

  int stage() const { return pipe_->rank(); }
  int stages() const { return pipe_->size(); }
  int parts() const { return parts_; }
  Communicator& job() { return job_; }
  Communicator& pipe() { return *pipe_; }   // this part's stages, rank = stage
  Communicator* group() { return group_; }  // this stage's parts, rank = part; none with one
  Communicator& data_pipe() { return data_pipe_ ? *data_pipe_ : *pipe_; }
  Communicator* data_group() { return data_group_ ? data_group_.get() : group_; }
  // Every distinct communicator's counters, together.
  ByteCounters counters() const;

 private:
  Communicator& job_;
  int parts_;
  std::unique_ptr<Communicator> pipe_made_, group_made_, data_pipe_, data_group_;
  Communicator* pipe_;
  Communicator* group_ = nullptr;
};

}  // namespace strata
