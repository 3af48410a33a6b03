// What this build of Strata is: its version and what it was built with.
#pragma once
#include <string>

namespace strata {

struct BuildInfo {
  std::string version;     ///< e.g. "0.1.0"
  bool cuda = false;       ///< the CUDA backend (--device cuda) is compiled in
  bool nccl = false;       ///< NCCL is compiled in (--comm nccl)
  std::string mpi;         ///< the MPI library's own version line
  std::string build_type;  ///< CMake's build type, e.g. "Release"
};

/// What this build has; callable before any MPI or device work.
BuildInfo build_info();

}  // namespace strata
