// What a Workers handle holds: the Communicator the modules use, owned or borrowed.
#pragma once
#include <memory>

#include "strata/comm/communicator.h"
#include "strata/workers.h"

namespace strata {

struct Workers::Impl {
  Communicator* comm = nullptr;
  std::unique_ptr<Communicator> owned;  // MPI; threads borrow run_in_process's
};

inline Communicator& communicator_of(Workers& workers) {
  return *workers.impl().comm;
}

}  // namespace strata
