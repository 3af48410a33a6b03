// The fallback for GPU workers without NCCL: a Communicator over device memory that runs
// a host-memory one (MPI; Debian's OpenMPI is not CUDA-aware) by staging every buffer
// through page-locked host memory. Each call copies device -> pinned host, calls the
// inner communicator, and copies what arrived back to the device. Byte counters and wait
// times are booked by the Communicator front end, as for every communicator, and include
// the staging copies in the wait.
#pragma once
#include <memory>
#include <vector>

#include "strata/comm/communicator.h"
#include "strata/core/device.h"

namespace strata {

class DeviceStagingCommunicator : public Communicator {
 public:
  // `context` must outlive this communicator.
  DeviceStagingCommunicator(std::unique_ptr<Communicator> host, const gpu::Context& context);

  int rank() const override { return host_->rank(); }
  int size() const override { return host_->size(); }
  [[noreturn]] void abort(const std::string& message) override;

 protected:
  void do_all_reduce_sum(std::span<std::byte> data, DType dtype) override;
  void do_all_to_all_v(std::span<const std::byte> send, std::span<const std::int64_t> send_counts,
                       std::span<std::byte> recv,
                       std::span<const std::int64_t> recv_counts) override;
  void do_all_gather(std::span<const std::byte> mine, std::span<std::byte> all) override;
  void do_broadcast(std::span<std::byte> data, int root) override;
  void do_barrier() override { host_->barrier(); }
  void do_progress() override { host_->progress(); }
  std::unique_ptr<RequestState> do_isend(int peer, int tag,
                                         std::span<const std::byte> data) override;
  std::unique_ptr<RequestState> do_irecv(int peer, int tag, std::span<std::byte> data) override;
  void do_wait(RequestState& state) override;
  std::unique_ptr<Communicator> do_split(int color, int key) override;

 private:
  // A pinned buffer of at least `bytes`, reused across calls (cudaMallocHost takes
  // milliseconds); give() returns it to the pool.
  gpu::PinnedBuffer take(std::size_t bytes);
  void give(gpu::PinnedBuffer buffer);
  std::span<std::byte> staged(gpu::PinnedBuffer& buffer, std::size_t bytes);

  std::unique_ptr<Communicator> host_;
  const gpu::Context& context_;
  std::vector<gpu::PinnedBuffer> pool_;
};

}  // namespace strata
