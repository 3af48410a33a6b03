// MpiSession: RAII for MPI_Init_thread(MPI_THREAD_FUNNELED) / MPI_Finalize. Construct one
// in main before any MpiCommunicator, and destroy the communicators before it.
#pragma once

namespace strata {

class MpiSession {
 public:
  // Sets MPI_ERRORS_RETURN on MPI_COMM_WORLD. If MPI is already initialized, adopts it and
  // leaves finalizing to its owner.
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool owns_ = false;
};

}  // namespace strata
