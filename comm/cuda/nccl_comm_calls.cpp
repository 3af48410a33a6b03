#include "nccl_comm_calls.h"

#include "nccl_check.h"
#include "strata/core/cuda_check.h"
#include "strata/core/error.h"

namespace strata {

void nccl_check(ncclResult_t result, const char* operation, const char* file, int line) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  throw_internal_error(file, line, "NCCL error: ", operation, ": ", ncclGetErrorString(result),
                       " (", ncclGetLastError(nullptr), ")");
}

NcclCommCalls::NcclCommCalls(ncclComm_t comm, const gpu::Context& context)
    : comm_(comm), compute_(static_cast<cudaStream_t>(context.stream())) {
  try {
    STRATA_CUDA_CHECK(cudaSetDevice(context.device()));
    STRATA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    STRATA_CUDA_CHECK(cudaEventCreateWithFlags(&computed_, cudaEventDisableTiming));
  } catch (...) {
    abort();
    if (stream_) cudaStreamDestroy(stream_);
    throw;
  }
}

NcclCommCalls::~NcclCommCalls() {
  if (comm_) ncclCommDestroy(comm_);
  cudaEventDestroy(computed_);
  cudaStreamDestroy(stream_);
}

NcclCalls::State NcclCommCalls::state(std::string& error) {
  ncclResult_t result = ncclSuccess;
  STRATA_NCCL_CHECK(ncclCommGetAsyncError(comm_, &result));
  if (result == ncclSuccess) return State::kReady;
  if (result == ncclInProgress) return State::kInProgress;
  error = cat(ncclGetErrorString(result), " (", ncclGetLastError(comm_), ")");
  return State::kFailed;
}

void NcclCommCalls::follow_compute() {
  STRATA_CUDA_CHECK(cudaEventRecord(computed_, compute_));
  STRATA_CUDA_CHECK(cudaStreamWaitEvent(stream_, computed_, 0));
}

void NcclCommCalls::group_start() {
  STRATA_NCCL_CHECK(ncclGroupStart());
}

void NcclCommCalls::group_end() {
  STRATA_NCCL_CHECK(ncclGroupEnd());
}

void NcclCommCalls::send(const void* data, std::size_t bytes, int peer) {
  STRATA_NCCL_CHECK(ncclSend(data, bytes, ncclUint8, peer, comm_, stream_));
}

void NcclCommCalls::recv(void* data, std::size_t bytes, int peer) {
  STRATA_NCCL_CHECK(ncclRecv(data, bytes, ncclUint8, peer, comm_, stream_));
}

bool NcclCommCalls::stream_idle() {
  const cudaError_t done = cudaStreamQuery(stream_);
  if (done == cudaErrorNotReady) return false;
  STRATA_CUDA_CHECK(done);
  return true;
}

void NcclCommCalls::finalize() {
  STRATA_NCCL_CHECK(ncclCommFinalize(comm_));
}

void NcclCommCalls::abort() noexcept {
  if (comm_) ncclCommAbort(comm_);
  comm_ = nullptr;
}

}  // namespace strata
