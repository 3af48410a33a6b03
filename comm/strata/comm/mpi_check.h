// STRATA_MPI_CHECK: the one check macro for MPI calls. The communicators set
// MPI_ERRORS_RETURN, so failures come back as codes and are thrown as strata::Error
// naming the call, the MPI error string, the world rank and file:line.
#pragma once

namespace strata {

void mpi_check(int code, const char* operation, const char* file, int line);

}  // namespace strata

#define STRATA_MPI_CHECK(call) ::strata::mpi_check((call), #call, __FILE__, __LINE__)
