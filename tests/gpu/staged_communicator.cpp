#include "staged_communicator.h"

#include <vector>

namespace strata {
namespace {

constexpr CommCategory kInner = CommCategory::kControl;  // the inner counters are not read

void download(const gpu::DeviceBuffer& buffer, std::span<std::byte> host,
              const gpu::Context& context) {
  buffer.download(host.data(), host.size(), context);
}

std::span<std::byte> device_span(gpu::DeviceBuffer& buffer) {
  return {static_cast<std::byte*>(buffer.data()), buffer.bytes()};
}

struct StagedRequest : RequestState {
  gpu::DeviceBuffer buffer;
  std::span<std::byte> host;  // where a receive lands; empty for a send
  Request inner;
};

}  // namespace

void StagedCommunicator::do_all_reduce_sum(std::span<std::byte> data, DType dtype) {
  gpu::DeviceBuffer device = gpu::to_device<std::byte>(data, context_);
  inner_->all_reduce_sum(device_span(device), dtype, kInner);
  download(device, data, context_);
}

void StagedCommunicator::do_all_to_all_v(std::span<const std::byte> send,
                                         std::span<const std::int64_t> send_counts,
                                         std::span<std::byte> recv,
                                         std::span<const std::int64_t> recv_counts) {
  gpu::DeviceBuffer device_send = gpu::to_device<std::byte>(send, context_),
                    device_recv(recv.size());
  inner_->all_to_all_v(device_span(device_send), send_counts, device_span(device_recv), recv_counts,
                       kInner);
  download(device_recv, recv, context_);
}

void StagedCommunicator::do_all_gather(std::span<const std::byte> mine, std::span<std::byte> all) {
  gpu::DeviceBuffer device_mine = gpu::to_device<std::byte>(mine, context_), device_all(all.size());
  inner_->all_gather(device_span(device_mine), device_span(device_all), kInner);
  download(device_all, all, context_);
}

void StagedCommunicator::do_broadcast(std::span<std::byte> data, int root) {
  gpu::DeviceBuffer device = gpu::to_device<std::byte>(data, context_);
  inner_->broadcast(device_span(device), root, kInner);
  download(device, data, context_);
}

std::unique_ptr<RequestState> StagedCommunicator::do_isend(int peer, int tag,
                                                           std::span<const std::byte> data) {
  auto state = std::make_unique<StagedRequest>();
  state->buffer = gpu::to_device<std::byte>(data, context_);
  state->inner = inner_->isend(peer, tag, device_span(state->buffer), kInner);
  return state;
}

std::unique_ptr<RequestState> StagedCommunicator::do_irecv(int peer, int tag,
                                                           std::span<std::byte> data) {
  auto state = std::make_unique<StagedRequest>();
  state->buffer = gpu::DeviceBuffer(data.size());
  state->host = data;
  state->inner = inner_->irecv(peer, tag, device_span(state->buffer), kInner);
  return state;
}

void StagedCommunicator::do_wait(RequestState& state) {
  auto& staged = static_cast<StagedRequest&>(state);
  inner_->wait(staged.inner);
  download(staged.buffer, staged.host, context_);
}

std::unique_ptr<Communicator> StagedCommunicator::do_split(int color, int key) {
  return std::make_unique<StagedCommunicator>(inner_->split(color, key), context_);
}

}  // namespace strata
