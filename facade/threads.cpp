// Threads per rank: each rank takes its share of the cores it may run on, so that ranks
// sharing cores (more ranks than cores, or OpenMPI binding ranks to a socket) do not each
// start one OpenMP thread per core and spin against one another.
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "strata/comm/mpi_communicator.h"
#include "strata/error.h"
#include "strata/workers.h"
#include "workers_impl.h"

// OpenBLAS built with OpenMP follows omp_set_num_threads only downwards: once it has been
// set to one thread (OMP_NUM_THREADS=1 at start), it stays there. Its own setter raises it
// too. Weak, so that another BLAS links as well.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" int openblas_get_num_threads() __attribute__((weak));

namespace strata {
namespace {

using Mask = std::array<unsigned char, sizeof(cpu_set_t)>;

Mask own_mask() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    throw Error(ErrorKind::kInternal, "sched_getaffinity failed: cannot read this rank's cores");
  Mask mask{};
  std::copy_n(reinterpret_cast<const unsigned char*>(&set), sizeof set, mask.begin());
  return mask;
}

bool holds(const Mask& mask, int cpu) {
  return (mask[static_cast<std::size_t>(cpu / 8)] >> (cpu % 8)) & 1;
}

int cores_in(const Mask& mask) {
  int n = 0;
  for (int cpu = 0; cpu < static_cast<int>(mask.size()) * 8; ++cpu) n += holds(mask, cpu);
  return n;
}

// This rank's share: for each core of its own mask, 1 / the masks on the host holding it.
int share_of(const Mask& own, const std::vector<Mask>& host) {
  double share = 0;
  for (int cpu = 0; cpu < static_cast<int>(own.size()) * 8; ++cpu) {
    if (!holds(own, cpu)) continue;
    const auto sharing =
        std::count_if(host.begin(), host.end(), [&](const Mask& m) { return holds(m, cpu); });
    share += 1.0 / static_cast<double>(std::max<std::ptrdiff_t>(sharing, 1));
  }
  return std::max(1, static_cast<int>(share + 1e-9));
}

// Every mask on this host: MPI ranks through a shared-memory split; threads of one
// process (run_threads, single) all hold the process's mask.
std::vector<Mask> host_masks(Workers& workers, const Mask& own) {
  auto* mpi = dynamic_cast<MpiCommunicator*>(&communicator_of(workers));
  if (mpi == nullptr) return std::vector<Mask>(static_cast<std::size_t>(workers.size()), own);
  MPI_Comm host = MPI_COMM_NULL;
  if (MPI_Comm_split_type(mpi->handle(), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) !=
      MPI_SUCCESS)
    throw Error(ErrorKind::kInternal, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
  int ranks = 1;
  MPI_Comm_size(host, &ranks);
  std::vector<Mask> all(static_cast<std::size_t>(ranks));
  const int rc = MPI_Allgather(own.data(), static_cast<int>(own.size()), MPI_BYTE, all.data(),
                               static_cast<int>(own.size()), MPI_BYTE, host);
  MPI_Comm_free(&host);
  if (rc != MPI_SUCCESS) throw Error(ErrorKind::kInternal, "MPI_Allgather of core masks failed");
  return all;
}

std::string plural(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

ThreadChoice choose(Workers& workers, int requested) {
  ThreadChoice c;
  const char* env = std::getenv("OMP_NUM_THREADS");
  const Mask own = own_mask();
  const std::vector<Mask> host = host_masks(workers, own);  // collective: every path calls it
  if (requested > 0) {
    c.threads = requested;
    c.reason = "--threads " + std::to_string(requested);
  } else if (env != nullptr && *env != '\0') {
    c.threads = omp_get_max_threads();
    c.reason = std::string("OMP_NUM_THREADS=") + env;
  } else {
    c.threads = share_of(own, host);
    const auto sharing = std::count_if(host.begin(), host.end(), [&](const Mask& m) {
      for (std::size_t i = 0; i < m.size(); ++i)
        if (m[i] & own[i]) return true;
      return false;
    });
    c.reason = plural(cores_in(own), "core", "cores") + " in this rank's affinity mask, " +
               "shared by " + plural(static_cast<int>(sharing), "rank", "ranks") + " on this host";
  }
  return c;
}

}  // namespace

ThreadChoice set_rank_threads(Workers& workers, int requested) {
  if (requested < 0)
    throw Error(ErrorKind::kInput,
                "--threads must be at least 1, got " + std::to_string(requested));
  ThreadChoice c = choose(workers, requested);
  omp_set_num_threads(c.threads);
  if (openblas_set_num_threads != nullptr) openblas_set_num_threads(c.threads);
  if (openblas_get_num_threads != nullptr) c.blas_threads = openblas_get_num_threads();
  std::vector<int> all(static_cast<std::size_t>(workers.size()));
  communicator_of(workers).all_gather(std::as_bytes(std::span(&c.threads, 1)),
                                      std::as_writable_bytes(std::span(all)),
                                      CommCategory::kControl);
  c.min_threads = *std::min_element(all.begin(), all.end());
  c.max_threads = *std::max_element(all.begin(), all.end());
  return c;
}

}  // namespace strata
