#include "strata/training/rank_grid.h"

#include <algorithm>
#include <vector>

#include "strata/comm/in_process_communicator.h"

namespace strata {
namespace {

std::unique_ptr<Communicator> data_twin(Communicator& host, const DataCommunicator& to_data) {
  return to_data && host.size() > 1 ? to_data(host) : nullptr;
}

}  // namespace

const Device& cpu_device() {
  static const std::unique_ptr<kernels::Backend> backend = kernels::make_cpu_backend();
  static const Device device{*backend, nullptr};
  return device;
}

// The job itself serves as pipe (one part) or group (one stage); splits make the rest.
RankGrid::RankGrid(Communicator& job, int parts, const DataCommunicator& to_data)
    : job_(job), parts_(parts), pipe_(&job) {
  STRATA_CHECK(parts >= 1 && job.size() % parts == 0, "a grid of ", parts, " parts on ", job.size(),
               " ranks");
  const int stage = job.rank() / parts, part = job.rank() % parts;
  if (parts == job.size()) {
    pipe_made_ = make_solo_communicator();
    pipe_ = pipe_made_.get();
  } else if (parts > 1) {
    pipe_made_ = job.split(part, stage);
    pipe_ = pipe_made_.get();
  }
  if (parts == job.size()) {
    group_ = &job;
  } else if (parts > 1) {
    group_made_ = job.split(stage, part);
    group_ = group_made_.get();
  }
  data_pipe_ = data_twin(*pipe_, to_data);
  if (group_) data_group_ = data_twin(*group_, to_data);
}

ByteCounters RankGrid::counters() const {
  ByteCounters all = job_.counters();
  std::vector<const Communicator*> seen{&job_};
  for (const Communicator* c : {pipe_, group_, static_cast<Communicator*>(data_pipe_.get()),
                                static_cast<Communicator*>(data_group_.get())}) {
    if (c == nullptr || std::find(seen.begin(), seen.end(), c) != seen.end()) continue;
    all += c->counters();
    seen.push_back(c);
  }
  return all;
}

}  // namespace strata
