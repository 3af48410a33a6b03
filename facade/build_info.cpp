#include "strata/build_info.h"

#include <mpi.h>

#include <string_view>

namespace strata {

BuildInfo build_info() {
  BuildInfo info;
  info.version = STRATA_VERSION_STRING;
  info.cuda = STRATA_BUILT_WITH_CUDA != 0;
  info.nccl = STRATA_BUILT_WITH_NCCL != 0;
  info.build_type = STRATA_BUILD_TYPE;
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(mpi, &length);  // allowed before MPI_Init
  const std::string_view text(mpi, static_cast<std::size_t>(length));
  info.mpi = std::string(text.substr(0, text.find_first_of(",\n")));
  return info;
}

}  // namespace strata
