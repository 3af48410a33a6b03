// NcclCalls over one non-blocking ncclComm_t and a communication stream of its own, which
// waits for the compute stream (a Context's) through an event before each launch.
#pragma once
#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

#include "strata/comm/nccl_sequencer.h"
#include "strata/core/device.h"

namespace strata {

class NcclCommCalls final : public NcclCalls {
 public:
  // Takes `comm`, whose init or split may still be in progress, on context's device.
  NcclCommCalls(ncclComm_t comm, const gpu::Context& context);
  // Destroys the communicator unless it was aborted.
  ~NcclCommCalls() override;
  NcclCommCalls(const NcclCommCalls&) = delete;
  NcclCommCalls& operator=(const NcclCommCalls&) = delete;

  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }

  State state(std::string& error) override;
  void follow_compute() override;
  void group_start() override;
  void group_end() override;
  void send(const void* data, std::size_t bytes, int peer) override;
  void recv(void* data, std::size_t bytes, int peer) override;
  bool stream_idle() override;
  void finalize() override;
  void abort() noexcept override;

 private:
  ncclComm_t comm_;
  cudaStream_t compute_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t computed_ = nullptr;
};

}  // namespace strata
