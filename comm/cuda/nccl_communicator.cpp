// comm/strata/comm/nccl_communicator.h over NCCL (host code: g++ compiles it). The NCCL
// communicator is non-blocking (ncclConfig_t::blocking = 0), so that no call can block
// forever: every call returns at once and the sequencer polls for completion.
#include "strata/comm/nccl_communicator.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <utility>
#include <vector>

#include "nccl_check.h"
#include "nccl_comm_calls.h"
#include "strata/comm/nccl_sequencer.h"
#include "strata/core/cuda_check.h"
#include "strata/core/error.h"

namespace strata {

struct NcclCommunicator::Handle {
  // rank: the caller's rank in the communicator it was made from, for messages.
  Handle(ncclComm_t comm, const gpu::Context& context, int rank)
      : calls(comm, context), sequencer(calls, rank, nccl_timeout()) {}
  ~Handle() { sequencer.close(); }
  NcclCommCalls calls;
  NcclSequencer sequencer;
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

ncclConfig_t non_blocking_config() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

// A ready communicator of bootstrap's ranks: rank 0's unique id goes to all over bootstrap.
ncclComm_t init_rank(Communicator& bootstrap, const gpu::Context& context) {
  ncclUniqueId id{};
  if (bootstrap.rank() == 0) STRATA_NCCL_CHECK(ncclGetUniqueId(&id));
  bootstrap.broadcast(std::as_writable_bytes(std::span(&id, 1)), 0, CommCategory::kControl);
  STRATA_CUDA_CHECK(cudaSetDevice(context.device()));
  ncclConfig_t config = non_blocking_config();
  ncclComm_t comm = nullptr;
  STRATA_NCCL_CHECK(ncclCommInitRankConfig(&comm, bootstrap.size(), id, bootstrap.rank(), &config));
  return comm;
}

template <typename Handle>
std::unique_ptr<Handle> settled(std::unique_ptr<Handle> handle, const char* operation) {
  handle->sequencer.settle(operation);
  return handle;
}

}  // namespace

bool NcclCommunicator::built_with_nccl() {
  return true;
}

NcclCommunicator::NcclCommunicator(Communicator& bootstrap, const gpu::Context& context)
    : NcclCommunicator(bootstrap, context,
                       settled(std::make_unique<Handle>(init_rank(bootstrap, context), context,
                                                        bootstrap.rank()),
                               "ncclCommInitRankConfig")) {}

NcclCommunicator::NcclCommunicator(Communicator& bootstrap, const gpu::Context& context,
                                   std::unique_ptr<Handle> handle)
    : bootstrap_(bootstrap), context_(context), handle_(std::move(handle)) {
  STRATA_NCCL_CHECK(ncclCommUserRank(handle_->calls.comm(), &rank_));
  STRATA_NCCL_CHECK(ncclCommCount(handle_->calls.comm(), &size_));
}

NcclCommunicator::~NcclCommunicator() = default;

void NcclCommunicator::abort(const std::string& message) {
  handle_->sequencer.abort();
  bootstrap_.abort(message);
  std::abort();  // not reached: the compiler does not see through the virtual call
}

void NcclCommunicator::do_all_reduce_sum(std::span<std::byte> data, DType dtype) {
  if (data.empty()) return;  // every rank has the same size, so every rank returns
  const std::size_t count = data.size() / dtype_size(dtype);
  const NcclCommCalls& calls = handle_->calls;
  handle_->sequencer.collective("all_reduce_sum", [&] {
    STRATA_NCCL_CHECK(ncclAllReduce(data.data(), data.data(), count, nccl_type(dtype), ncclSum,
                                    calls.comm(), calls.stream()));
  });
}

void NcclCommunicator::do_all_to_all_v(std::span<const std::byte> send,
                                       std::span<const std::int64_t> send_counts,
                                       std::span<std::byte> recv,
                                       std::span<const std::int64_t> recv_counts) {
  std::vector<NcclSequencer::Transfer> transfers;
  std::size_t send_offset = 0, recv_offset = 0;
  for (int p = 0; p < size_; ++p) {
    const auto out = static_cast<std::size_t>(send_counts[static_cast<std::size_t>(p)]);
    const auto in = static_cast<std::size_t>(recv_counts[static_cast<std::size_t>(p)]);
    // ncclSend takes a const pointer; Transfer holds either kind, and a send's is never written.
    transfers.push_back({true, p, 0, const_cast<std::byte*>(send.data()) + send_offset, out});
    transfers.push_back({false, p, 0, recv.data() + recv_offset, in});
    send_offset += out;
    recv_offset += in;
  }
  handle_->sequencer.exchange("all_to_all_v", std::move(transfers));
}

void NcclCommunicator::do_all_gather(std::span<const std::byte> mine, std::span<std::byte> all) {
  if (mine.empty()) return;
  const NcclCommCalls& calls = handle_->calls;
  handle_->sequencer.collective("all_gather", [&] {
    STRATA_NCCL_CHECK(ncclAllGather(mine.data(), all.data(), mine.size(), ncclUint8, calls.comm(),
                                    calls.stream()));
  });
}

void NcclCommunicator::do_broadcast(std::span<std::byte> data, int root) {
  if (data.empty()) return;
  const NcclCommCalls& calls = handle_->calls;
  handle_->sequencer.collective("broadcast", [&] {
    STRATA_NCCL_CHECK(ncclBroadcast(data.data(), data.data(), data.size(), ncclUint8, root,
                                    calls.comm(), calls.stream()));
  });
}

void NcclCommunicator::do_barrier() {
  if (barrier_word_.bytes() == 0) barrier_word_ = gpu::DeviceBuffer(sizeof(std::int32_t));
  const NcclCommCalls& calls = handle_->calls;
  handle_->sequencer.collective("barrier", [&] {
    STRATA_NCCL_CHECK(ncclAllReduce(barrier_word_.data(), barrier_word_.data(), 1, ncclInt32,
                                    ncclSum, calls.comm(), calls.stream()));
  });
}

std::unique_ptr<RequestState> NcclCommunicator::do_isend(int peer, int tag,
                                                         std::span<const std::byte> data) {
  handle_->sequencer.post({true, peer, tag, const_cast<std::byte*>(data.data()), data.size()});
  return std::make_unique<NcclRequestState>();
}

std::unique_ptr<RequestState> NcclCommunicator::do_irecv(int peer, int tag,
                                                         std::span<std::byte> data) {
  handle_->sequencer.post({false, peer, tag, data.data(), data.size()});
  return std::make_unique<NcclRequestState>();
}

void NcclCommunicator::do_flush() {
  handle_->sequencer.flush();
}

void NcclCommunicator::do_wait(RequestState&) {
  handle_->sequencer.wait("wait");
}

std::unique_ptr<Communicator> NcclCommunicator::do_split(int color, int key) {
  // Every call of the sequencer returns with the communicator ready (no call in progress),
  // as ncclCommSplit wants its parent.
  ncclConfig_t config = non_blocking_config();
  ncclComm_t child = nullptr;
  STRATA_NCCL_CHECK(ncclCommSplit(handle_->calls.comm(), color, key, &child, &config));
  handle_->sequencer.settle("ncclCommSplit");
  auto handle = settled(std::make_unique<Handle>(child, context_, rank_), "ncclCommSplit (child)");
  return std::unique_ptr<NcclCommunicator>(
      new NcclCommunicator(bootstrap_, context_, std::move(handle)));
}

}  // namespace strata
