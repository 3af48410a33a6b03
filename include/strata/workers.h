// The ranks of a job: MPI processes, or threads of one process for tests and examples.
#pragma once
#include <functional>
#include <memory>
#include <string>

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1  // mpi.h from C++ would pull in the deprecated C++ bindings
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

namespace strata {

/// Makes every large array (128 KiB or more) its own mapping, returned to the system when
/// freed, so that a process's peak resident memory is what it holds at once (what the
/// memory estimate predicts). glibc otherwise raises that threshold as large arrays are
/// freed and keeps later frees in its heap. Process-wide: `strata train` calls it first;
/// a program that embeds Strata may too. (Defined in core/memory.cpp.)
void return_freed_arrays_promptly();

/// Owns MPI_Init_thread / MPI_Finalize for programs that do not manage MPI themselves.
/// If MPI is already initialized, it adopts it and leaves finalizing to its owner.
class MpiRuntime {
 public:
  MpiRuntime(int* argc, char*** argv);
  ~MpiRuntime();
  MpiRuntime(const MpiRuntime&) = delete;
  MpiRuntime& operator=(const MpiRuntime&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// This rank's handle on the job. Every collective Strata call (a Trainer, its train())
/// must be made by every rank of the same Workers, in the same order.
class Workers {
 public:
  /// The ranks of `comm` (duplicated, so Strata's messages never meet the caller's).
  /// MPI must be initialized, by an MpiRuntime or by the caller.
  static Workers mpi(MPI_Comm comm = MPI_COMM_WORLD);
  /// A job of one rank in the calling thread, without MPI (mode local needs no more).
  static Workers single();
  /// Runs body on `ranks` threads of this process, each with its own Workers, and joins
  /// them. If a body throws, the others are woken with an error too, and the first
  /// error is rethrown here as a strata::Error whose message starts "rank R: ".
  static void run_threads(int ranks, const std::function<void(Workers&)>& body);

  Workers(Workers&&) noexcept;
  Workers& operator=(Workers&&) noexcept;
  ~Workers();

  int rank() const;
  int size() const;
  /// Ends the whole job from this rank: MPI_Abort, or in threads, an error on every rank.
  [[noreturn]] void abort(const std::string& message);

  struct Impl;  ///< facade/workers_impl.h
  Impl& impl() { return *impl_; }

 private:
  explicit Workers(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The OpenMP threads each rank of a job uses (OpenBLAS shares the pool), and why.
struct ThreadChoice {
  int threads = 1;      ///< this rank's
  int min_threads = 1;  ///< the fewest and most of any rank of the job
  int max_threads = 1;
  int blas_threads = 0;  ///< what OpenBLAS reports it will use (0: not OpenBLAS)
  std::string reason;    ///< e.g. "2 cores in this rank's affinity mask, shared by 4 ranks"
};

/// Sets the OpenMP (and OpenBLAS) threads of this rank; call it before any training work.
/// `requested` > 0 wins; else OMP_NUM_THREADS, when set, is kept; else each rank takes its
/// share of the cores in its affinity mask: for each such core, 1 / (the ranks on this host
/// whose masks hold it; MPI_COMM_TYPE_SHARED), summed and rounded down, at least 1. Ranks
/// that are threads of one process (Workers::run_threads) share the process's mask.
/// Collective: every rank of `workers` calls it.
ThreadChoice set_rank_threads(Workers& workers, int requested = 0);

}  // namespace strata
