// MPI implementation of Communicator. Needs an MpiSession (or another owner of
// MPI_Init/MPI_Finalize) alive for its whole lifetime.
#pragma once
#include <mpi.h>

#include "strata/comm/communicator.h"

namespace strata {

class MpiCommunicator : public Communicator {
 public:
  // Works on a duplicate of comm (its own message space), with MPI_ERRORS_RETURN set.
  explicit MpiCommunicator(MPI_Comm comm = MPI_COMM_WORLD);
  ~MpiCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MPI_Comm handle() const { return comm_; }
  // Prints "strata: rank R: message" to stderr and calls MPI_Abort on this communicator.
  [[noreturn]] void abort(const std::string& message) override;

 protected:
  void do_all_reduce_sum(std::span<std::byte> data, DType dtype) override;
  void do_all_to_all_v(std::span<const std::byte> send, std::span<const std::int64_t> send_counts,
                       std::span<std::byte> recv,
                       std::span<const std::int64_t> recv_counts) override;
  void do_all_gather(std::span<const std::byte> mine, std::span<std::byte> all) override;
  void do_broadcast(std::span<std::byte> data, int root) override;
  void do_barrier() override;
  std::unique_ptr<RequestState> do_isend(int peer, int tag,
                                         std::span<const std::byte> data) override;
  std::unique_ptr<RequestState> do_irecv(int peer, int tag, std::span<std::byte> data) override;
  void do_wait(RequestState& state) override;
  void do_progress() override;
  std::unique_ptr<Communicator> do_split(int color, int key) override;

 private:
  void all_reduce_uint8(std::span<std::byte> data);
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace strata
