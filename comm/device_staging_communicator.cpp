#include "strata/comm/device_staging_communicator.h"

#include <algorithm>
#include <cstdlib>

namespace strata {
namespace {

// The inner communicator's own counters are never read: this one's front end books the
// bytes, by the same rules.
constexpr CommCategory kInner = CommCategory::kControl;

struct StagingRequest : RequestState {
  gpu::PinnedBuffer buffer;
  std::span<std::byte> device;  // where a receive lands; empty for a send
  Request host;
};

}  // namespace

DeviceStagingCommunicator::DeviceStagingCommunicator(std::unique_ptr<Communicator> host,
                                                     const gpu::Context& context)
    : host_(std::move(host)), context_(context) {}

void DeviceStagingCommunicator::abort(const std::string& message) {
  host_->abort(message);
  std::abort();  // not reached: the compiler does not see through the virtual call
}

gpu::PinnedBuffer DeviceStagingCommunicator::take(std::size_t bytes) {
  const auto fits = std::find_if(pool_.begin(), pool_.end(), [bytes](const gpu::PinnedBuffer& b) {
    return b.bytes() >= bytes;
  });
  if (fits == pool_.end()) return gpu::PinnedBuffer(std::max<std::size_t>(bytes, 4096));
  gpu::PinnedBuffer buffer = std::move(*fits);
  pool_.erase(fits);
  return buffer;
}

void DeviceStagingCommunicator::give(gpu::PinnedBuffer buffer) {
  pool_.push_back(std::move(buffer));
}

std::span<std::byte> DeviceStagingCommunicator::staged(gpu::PinnedBuffer& buffer,
                                                       std::size_t bytes) {
  return {buffer.data(), bytes};
}

void DeviceStagingCommunicator::do_all_reduce_sum(std::span<std::byte> data, DType dtype) {
  gpu::PinnedBuffer host = take(data.size());
  gpu::copy_to_host(host.data(), data.data(), data.size(), context_);
  host_->all_reduce_sum(staged(host, data.size()), dtype, kInner);
  gpu::copy_to_device(data.data(), host.data(), data.size(), context_);
  give(std::move(host));
}

void DeviceStagingCommunicator::do_all_to_all_v(std::span<const std::byte> send,
                                                std::span<const std::int64_t> send_counts,
                                                std::span<std::byte> recv,
                                                std::span<const std::int64_t> recv_counts) {
  gpu::PinnedBuffer host_send = take(send.size()), host_recv = take(recv.size());
  gpu::copy_to_host(host_send.data(), send.data(), send.size(), context_);
  host_->all_to_all_v(staged(host_send, send.size()), send_counts, staged(host_recv, recv.size()),
                      recv_counts, kInner);
  gpu::copy_to_device(recv.data(), host_recv.data(), recv.size(), context_);
  give(std::move(host_send));
  give(std::move(host_recv));
}

void DeviceStagingCommunicator::do_all_gather(std::span<const std::byte> mine,
                                              std::span<std::byte> all) {
  gpu::PinnedBuffer host_mine = take(mine.size()), host_all = take(all.size());
  gpu::copy_to_host(host_mine.data(), mine.data(), mine.size(), context_);
  host_->all_gather(staged(host_mine, mine.size()), staged(host_all, all.size()), kInner);
  gpu::copy_to_device(all.data(), host_all.data(), all.size(), context_);
  give(std::move(host_mine));
  give(std::move(host_all));
}

void DeviceStagingCommunicator::do_broadcast(std::span<std::byte> data, int root) {
  gpu::PinnedBuffer host = take(data.size());
  if (rank() == root) gpu::copy_to_host(host.data(), data.data(), data.size(), context_);
  host_->broadcast(staged(host, data.size()), root, kInner);
  if (rank() != root) gpu::copy_to_device(data.data(), host.data(), data.size(), context_);
  give(std::move(host));
}

std::unique_ptr<RequestState> DeviceStagingCommunicator::do_isend(int peer, int tag,
                                                                  std::span<const std::byte> data) {
  auto state = std::make_unique<StagingRequest>();
  state->buffer = take(data.size());
  gpu::copy_to_host(state->buffer.data(), data.data(), data.size(), context_);
  state->host = host_->isend(peer, tag, staged(state->buffer, data.size()), kInner);
  return state;
}

std::unique_ptr<RequestState> DeviceStagingCommunicator::do_irecv(int peer, int tag,
                                                                  std::span<std::byte> data) {
  auto state = std::make_unique<StagingRequest>();
  state->buffer = take(data.size());
  state->device = data;
  state->host = host_->irecv(peer, tag, staged(state->buffer, data.size()), kInner);
  return state;
}

void DeviceStagingCommunicator::do_wait(RequestState& state) {
  auto& staging = static_cast<StagingRequest&>(state);
  host_->wait(staging.host);
  gpu::copy_to_device(staging.device.data(), staging.buffer.data(), staging.device.size(),
                      context_);
  give(std::move(staging.buffer));
}

std::unique_ptr<Communicator> DeviceStagingCommunicator::do_split(int color, int key) {
  return std::make_unique<DeviceStagingCommunicator>(host_->split(color, key), context_);
}

}  // namespace strata
