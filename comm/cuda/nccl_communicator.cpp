// comm/strata/comm/nccl_communicator.h over NCCL (host code: g++ compiles it). The NCCL
// communicator is non-blocking (ncclConfig_t::blocking = 0), so that no call can block
// forever: every call returns at once and wait_stream polls for completion.
#include "strata/comm/nccl_communicator.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <tuple>

#include "nccl_check.h"
#include "strata/core/cuda_check.h"
#include "strata/core/error.h"

namespace strata {

void nccl_check(ncclResult_t result, const char* operation, const char* file, int line) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  throw_internal_error(file, line, "NCCL error: ", operation, ": ", ncclGetErrorString(result),
                       " (", ncclGetLastError(nullptr), ")");
}

struct NcclCommunicator::Handle {
  ncclComm_t comm = nullptr;
};

namespace {

struct NcclRequestState : RequestState {};

ncclDataType_t nccl_type(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return ncclFloat32;
    case DType::kFloat64:
      return ncclFloat64;
    case DType::kInt32:
      return ncclInt32;
    case DType::kInt64:
      return ncclInt64;
    case DType::kUInt8:
      return ncclUint8;  // wraps modulo 256, like the other communicators
  }
  throw_internal_error(__FILE__, __LINE__, "unknown dtype ", static_cast<int>(dtype));
}

std::chrono::seconds timeout() {
  const char* value = std::getenv("STRATA_NCCL_TIMEOUT_S");
  const long seconds = value ? std::strtol(value, nullptr, 10) : 600;
  return std::chrono::seconds(seconds > 0 ? seconds : 600);
}

ncclConfig_t non_blocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

// Polls until `comm` has no call in progress and, when a stream is given, that stream's
// work is done. On an NCCL error or after the timeout it aborts comm (ending whatever is
// still queued), leaves it null, and throws naming the rank and the operation.
void await(ncclComm_t& comm, std::optional<cudaStream_t> stream, int rank, const char* operation) {
  const auto deadline = std::chrono::steady_clock::now() + timeout();
  const char* failure = nullptr;
  while (failure == nullptr) {
    ncclResult_t state = ncclSuccess;
    STRATA_NCCL_CHECK(ncclCommGetAsyncError(comm, &state));
    if (state == ncclSuccess) {
      if (!stream) return;
      const cudaError_t done = cudaStreamQuery(*stream);
      if (done == cudaSuccess) return;
      if (done != cudaErrorNotReady) STRATA_CUDA_CHECK(done);
    } else if (state != ncclInProgress) {
      failure = ncclGetErrorString(state);
    }
    if (failure == nullptr && std::chrono::steady_clock::now() > deadline)
      failure = "no progress before STRATA_NCCL_TIMEOUT_S (did a peer fail?)";
    std::this_thread::yield();
  }
  ncclCommAbort(comm);
  comm = nullptr;
  throw Error(ErrorKind::kInternal, cat("rank ", rank, ": NCCL ", operation, ": ", failure));
}

// A ready communicator of bootstrap's ranks: rank 0's unique id goes to all over bootstrap.
ncclComm_t join(Communicator& bootstrap, const gpu::Context& context) {
  ncclUniqueId id{};
  if (bootstrap.rank() == 0) STRATA_NCCL_CHECK(ncclGetUniqueId(&id));
  bootstrap.broadcast(std::as_writable_bytes(std::span(&id, 1)), 0, CommCategory::kControl);
  STRATA_CUDA_CHECK(cudaSetDevice(context.device()));
  ncclConfig_t config = non_blocking_config();
  ncclComm_t comm = nullptr;
  STRATA_NCCL_CHECK(ncclCommInitRankConfig(&comm, bootstrap.size(), id, bootstrap.rank(), &config));
  await(comm, std::nullopt, bootstrap.rank(), "ncclCommInitRankConfig");
  return comm;
}

cudaStream_t stream_of(const gpu::Context& context) {
  return static_cast<cudaStream_t>(context.stream());
}

}  // namespace

bool NcclCommunicator::built_with_nccl() {
  return true;
}

NcclCommunicator::NcclCommunicator(Communicator& bootstrap, const gpu::Context& context)
    : NcclCommunicator(bootstrap, context,
                       std::make_unique<Handle>(Handle{join(bootstrap, context)})) {}

NcclCommunicator::NcclCommunicator(Communicator& bootstrap, const gpu::Context& context,
                                   std::unique_ptr<Handle> handle)
    : bootstrap_(bootstrap), context_(context), handle_(std::move(handle)) {
  STRATA_NCCL_CHECK(ncclCommUserRank(handle_->comm, &rank_));
  STRATA_NCCL_CHECK(ncclCommCount(handle_->comm, &size_));
}

NcclCommunicator::~NcclCommunicator() {
  if (!handle_ || !handle_->comm) return;
  // Unwinding, a peer may be gone: ncclCommDestroy would wait for it, ncclCommAbort won't.
  if (std::uncaught_exceptions() > 0)
    ncclCommAbort(handle_->comm);
  else
    ncclCommDestroy(handle_->comm);
}

void NcclCommunicator::abort(const std::string& message) {
  if (handle_->comm) ncclCommAbort(handle_->comm);
  handle_->comm = nullptr;
  bootstrap_.abort(message);
  std::abort();  // not reached: the compiler does not see through the virtual call
}

void NcclCommunicator::wait_stream(const char* operation) {
  await(handle_->comm, stream_of(context_), rank_, operation);
}

void NcclCommunicator::do_all_reduce_sum(std::span<std::byte> data, DType dtype) {
  if (data.empty()) return;  // every rank has the same size, so every rank returns
  const std::size_t count = data.size() / dtype_size(dtype);
  STRATA_NCCL_CHECK(ncclAllReduce(data.data(), data.data(), count, nccl_type(dtype), ncclSum,
                                  handle_->comm, stream_of(context_)));
  wait_stream("all_reduce_sum");
}

void NcclCommunicator::do_all_to_all_v(std::span<const std::byte> send,
                                       std::span<const std::int64_t> send_counts,
                                       std::span<std::byte> recv,
                                       std::span<const std::int64_t> recv_counts) {
  std::size_t send_offset = 0, recv_offset = 0;
  STRATA_NCCL_CHECK(ncclGroupStart());
  for (int p = 0; p < size_; ++p) {
    const auto out = static_cast<std::size_t>(send_counts[static_cast<std::size_t>(p)]);
    const auto in = static_cast<std::size_t>(recv_counts[static_cast<std::size_t>(p)]);
    if (out > 0)
      STRATA_NCCL_CHECK(ncclSend(send.data() + send_offset, out, ncclUint8, p, handle_->comm,
                                 stream_of(context_)));
    if (in > 0)
      STRATA_NCCL_CHECK(ncclRecv(recv.data() + recv_offset, in, ncclUint8, p, handle_->comm,
                                 stream_of(context_)));
    send_offset += out;
    recv_offset += in;
  }
  STRATA_NCCL_CHECK(ncclGroupEnd());
  wait_stream("all_to_all_v");
}

void NcclCommunicator::do_all_gather(std::span<const std::byte> mine, std::span<std::byte> all) {
  if (mine.empty()) return;
  STRATA_NCCL_CHECK(ncclAllGather(mine.data(), all.data(), mine.size(), ncclUint8, handle_->comm,
                                  stream_of(context_)));
  wait_stream("all_gather");
}

void NcclCommunicator::do_broadcast(std::span<std::byte> data, int root) {
  if (data.empty()) return;
  STRATA_NCCL_CHECK(ncclBroadcast(data.data(), data.data(), data.size(), ncclUint8, root,
                                  handle_->comm, stream_of(context_)));
  wait_stream("broadcast");
}

void NcclCommunicator::do_barrier() {
  if (barrier_word_.bytes() == 0) barrier_word_ = gpu::DeviceBuffer(sizeof(std::int32_t));
  STRATA_NCCL_CHECK(ncclAllReduce(barrier_word_.data(), barrier_word_.data(), 1, ncclInt32, ncclSum,
                                  handle_->comm, stream_of(context_)));
  wait_stream("barrier");
}

std::unique_ptr<RequestState> NcclCommunicator::do_isend(int peer, int tag,
                                                         std::span<const std::byte> data) {
  // ncclSend takes a const pointer; Pending holds either kind, and a send's is never written.
  pending_.push_back({true, peer, tag, const_cast<std::byte*>(data.data()), data.size()});
  return std::make_unique<NcclRequestState>();
}

std::unique_ptr<RequestState> NcclCommunicator::do_irecv(int peer, int tag,
                                                         std::span<std::byte> data) {
  pending_.push_back({false, peer, tag, data.data(), data.size()});
  return std::make_unique<NcclRequestState>();
}

void NcclCommunicator::launch_pending() {
  if (pending_.empty()) return;
  // Sends and receives between a pair then meet in the same (tag, order) sequence.
  std::stable_sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) {
    return std::tie(a.peer, a.tag) < std::tie(b.peer, b.tag);
  });
  STRATA_NCCL_CHECK(ncclGroupStart());
  for (const Pending& p : pending_) {
    if (p.bytes == 0) continue;  // a message's two sides agree on its size, so both skip it
    if (p.send)
      STRATA_NCCL_CHECK(
          ncclSend(p.data, p.bytes, ncclUint8, p.peer, handle_->comm, stream_of(context_)));
    else
      STRATA_NCCL_CHECK(
          ncclRecv(p.data, p.bytes, ncclUint8, p.peer, handle_->comm, stream_of(context_)));
  }
  pending_.clear();
  STRATA_NCCL_CHECK(ncclGroupEnd());
}

void NcclCommunicator::do_flush() {
  launch_pending();
}

void NcclCommunicator::do_wait(RequestState&) {
  launch_pending();
  wait_stream("wait");
}

std::unique_ptr<Communicator> NcclCommunicator::do_split(int color, int key) {
  auto child = std::make_unique<Handle>();
  ncclConfig_t config = non_blocking_config();
  STRATA_NCCL_CHECK(ncclCommSplit(handle_->comm, color, key, &child->comm, &config));
  await(child->comm, std::nullopt, rank_, "ncclCommSplit");
  return std::unique_ptr<NcclCommunicator>(
      new NcclCommunicator(bootstrap_, context_, std::move(child)));
}

}  // namespace strata
