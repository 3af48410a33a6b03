// comm/strata/comm/nccl_communicator.h in a build without CUDA or NCCL: constructing one
// throws "built without NCCL"; the other members exist only to complete the class.
#include <cstdlib>

#include "strata/comm/nccl_communicator.h"
#include "strata/core/error.h"

namespace strata {
namespace {

[[noreturn]] void no_nccl() {
  throw_input_error("NCCL communicator: built without NCCL (configure with nvcc on the PATH, ",
                    "the CUDA toolkit's nccl.h and libnccl, and -DSTRATA_WITH_CUDA=ON)");
}

}  // namespace

struct NcclCommunicator::Handle {};

bool NcclCommunicator::built_with_nccl() {
  return false;
}

NcclCommunicator::NcclCommunicator(Communicator& bootstrap, const gpu::Context& context)
    : bootstrap_(bootstrap), context_(context) {
  no_nccl();
}
NcclCommunicator::~NcclCommunicator() = default;

void NcclCommunicator::abort(const std::string& message) {
  bootstrap_.abort(message);
  std::abort();  // not reached: the compiler does not see through the virtual call
}
void NcclCommunicator::do_all_reduce_sum(std::span<std::byte>, DType) {
  no_nccl();
}
void NcclCommunicator::do_all_to_all_v(std::span<const std::byte>, std::span<const std::int64_t>,
                                       std::span<std::byte>, std::span<const std::int64_t>) {
  no_nccl();
}
void NcclCommunicator::do_all_gather(std::span<const std::byte>, std::span<std::byte>) {
  no_nccl();
}
void NcclCommunicator::do_broadcast(std::span<std::byte>, int) {
  no_nccl();
}
void NcclCommunicator::do_barrier() {
  no_nccl();
}
void NcclCommunicator::do_flush() {
  no_nccl();
}
std::unique_ptr<RequestState> NcclCommunicator::do_isend(int, int, std::span<const std::byte>) {
  no_nccl();
}
std::unique_ptr<RequestState> NcclCommunicator::do_irecv(int, int, std::span<std::byte>) {
  no_nccl();
}
void NcclCommunicator::do_wait(RequestState&) {
  no_nccl();
}
std::unique_ptr<Communicator> NcclCommunicator::do_split(int, int) {
  no_nccl();
}

}  // namespace strata
