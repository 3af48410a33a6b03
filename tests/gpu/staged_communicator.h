// A Communicator over host memory that runs another one over device memory: every call
// copies its host buffers to the GPU, calls the inner communicator there, and copies the
// results back. It lets the host-memory checks of tests/comm run unchanged on the NCCL
// communicator. Its own counters are booked by the Communicator front end, by the same
// rules as the inner one's.
#pragma once
#include <cstdlib>
#include <memory>

#include "strata/comm/communicator.h"
#include "strata/core/device.h"

namespace strata {

class StagedCommunicator : public Communicator {
 public:
  // `context` must outlive this communicator.
  StagedCommunicator(std::unique_ptr<Communicator> inner, const gpu::Context& context)
      : inner_(std::move(inner)), context_(context) {}

  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  [[noreturn]] void abort(const std::string& message) override {
    inner_->abort(message);
    std::abort();  // not reached: the compiler does not see through the virtual call
  }

 protected:
  void do_all_reduce_sum(std::span<std::byte> data, DType dtype) override;
  void do_all_to_all_v(std::span<const std::byte> send, std::span<const std::int64_t> send_counts,
                       std::span<std::byte> recv,
                       std::span<const std::int64_t> recv_counts) override;
  void do_all_gather(std::span<const std::byte> mine, std::span<std::byte> all) override;
  void do_broadcast(std::span<std::byte> data, int root) override;
  void do_barrier() override { inner_->barrier(); }
  std::unique_ptr<RequestState> do_isend(int peer, int tag,
                                         std::span<const std::byte> data) override;
  std::unique_ptr<RequestState> do_irecv(int peer, int tag, std::span<std::byte> data) override;
  void do_wait(RequestState& state) override;
  void do_flush() override { inner_->flush(); }
  std::unique_ptr<Communicator> do_split(int color, int key) override;

 private:
  std::unique_ptr<Communicator> inner_;
  const gpu::Context& context_;
};

}  // namespace strata
