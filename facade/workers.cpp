#include "strata/workers.h"

#include <cstdlib>

#include "strata/comm/in_process_communicator.h"
#include "strata/comm/mpi_communicator.h"
#include "strata/comm/mpi_session.h"
#include "workers_impl.h"

namespace strata {

struct MpiRuntime::Impl {
  Impl(int* argc, char*** argv) : session(argc, argv) {}
  MpiSession session;
};

MpiRuntime::MpiRuntime(int* argc, char*** argv) : impl_(std::make_unique<Impl>(argc, argv)) {}
MpiRuntime::~MpiRuntime() = default;

Workers::Workers(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Workers::Workers(Workers&&) noexcept = default;
Workers& Workers::operator=(Workers&&) noexcept = default;
Workers::~Workers() = default;

Workers Workers::mpi(MPI_Comm comm) {
  auto impl = std::make_unique<Impl>();
  impl->owned = std::make_unique<MpiCommunicator>(comm);
  impl->comm = impl->owned.get();
  return Workers(std::move(impl));
}

Workers Workers::single() {
  auto impl = std::make_unique<Impl>();
  impl->owned = make_solo_communicator();
  impl->comm = impl->owned.get();
  return Workers(std::move(impl));
}

void Workers::run_threads(int ranks, const std::function<void(Workers&)>& body) {
  run_in_process(ranks, [&](Communicator& comm) {
    auto impl = std::make_unique<Impl>();
    impl->comm = &comm;
    Workers workers(std::move(impl));
    body(workers);
  });
}

int Workers::rank() const {
  return impl_->comm->rank();
}

int Workers::size() const {
  return impl_->comm->size();
}

void Workers::abort(const std::string& message) {
  impl_->comm->abort(message);
  std::abort();  // not reached: Communicator::abort does not return
}

}  // namespace strata
