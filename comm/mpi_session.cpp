#include "strata/comm/mpi_session.h"

#include <mpi.h>

#include "strata/comm/mpi_check.h"
#include "strata/core/error.h"

namespace strata {

void mpi_check(int code, const char* operation, const char* file, int line) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  int initialized = 0, finalized = 0, rank = -1;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  throw Error(ErrorKind::kInternal,
              cat("MPI error on rank ", rank, " in ", operation, ": ",
                  std::string(text, static_cast<std::size_t>(length)), " (", file, ":", line, ")"));
}

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  STRATA_MPI_CHECK(MPI_Initialized(&initialized));
  if (!initialized) {
    int provided = 0;
    STRATA_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
    owns_ = true;
    STRATA_CHECK(provided >= MPI_THREAD_FUNNELED, "MPI provides thread level ", provided,
                 ", Strata needs MPI_THREAD_FUNNELED");
  }
  STRATA_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_ && !finalized) MPI_Finalize();
}

}  // namespace strata
