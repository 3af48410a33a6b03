// Streams large messages from rank 0 to rank 1 and prints the payload bandwidth in Gbit/s
// (1e9 bits per second), the figure `scripts/cluster.sh selftest` compares with the rate a
// link was shaped to. Two messages are in flight at a time, so the per-message rendezvous
// of large MPI messages does not leave the link idle.
//   mpirun -np 2 mpi_bandwidth [--mib M] [--reps R] [--trials T]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Options {
  int mib = 64;
  int reps = 16;
  int trials = 3;
};

bool parse_int(const char* text, int& out) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 1 << 20) return false;
  out = static_cast<int>(value);
  return true;
}

// Returns an error message, empty when the arguments are good.
std::string parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    int* target = flag == "--mib"      ? &o.mib
                  : flag == "--reps"   ? &o.reps
                  : flag == "--trials" ? &o.trials
                                       : nullptr;
    if (target == nullptr) return "unknown option " + flag;
    if (i + 1 >= argc || !parse_int(argv[i + 1], *target))
      return flag + " needs a positive integer";
  }
  return {};
}

void send_all(const std::vector<char>& buf, int reps) {
  const int count = static_cast<int>(buf.size());
  MPI_Request pending = MPI_REQUEST_NULL;
  for (int i = 0; i < reps; ++i) {
    MPI_Request next;
    MPI_Isend(buf.data(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &next);
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
    pending = next;
  }
  MPI_Wait(&pending, MPI_STATUS_IGNORE);
  char ack = 0;
  MPI_Recv(&ack, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// Two receive buffers, so a message can land while the previous one is completed.
void receive_all(std::vector<char> (&bufs)[2], int reps) {
  const int count = static_cast<int>(bufs[0].size());
  MPI_Request pending = MPI_REQUEST_NULL;
  for (int i = 0; i < reps; ++i) {
    MPI_Request next;
    MPI_Irecv(bufs[i % 2].data(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &next);
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
    pending = next;
  }
  MPI_Wait(&pending, MPI_STATUS_IGNORE);
  char ack = 1;
  MPI_Send(&ack, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
}

// Seconds for `reps` messages, as rank 0 sees it (the final ack is included).
double stream(int rank, std::vector<char> (&bufs)[2], int reps) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  if (rank == 0) send_all(bufs[0], reps);
  if (rank == 1) receive_all(bufs, reps);
  return MPI_Wtime() - start;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int run(int rank, const Options& o) {
  const size_t bytes = static_cast<size_t>(o.mib) << 20;
  std::vector<char> bufs[2] = {std::vector<char>(bytes, 1), std::vector<char>(bytes, 0)};
  stream(rank, bufs, 1);  // warm-up: OpenMPI opens its TCP connections lazily
  std::vector<double> rates;
  for (int t = 1; t <= o.trials; ++t) {
    const double seconds = stream(rank, bufs, o.reps);
    const double gbit = static_cast<double>(bytes) * o.reps * 8 / seconds / 1e9;
    rates.push_back(gbit);
    if (rank == 0) std::printf("trial %d: %.3f Gbit/s (%.3f s)\n", t, gbit, seconds);
  }
  if (rank == 0) std::printf("median: %.3f Gbit/s\n", median(rates));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o;
  std::string error = parse(argc, argv, o);
  if (error.empty() && size != 2) error = "needs exactly 2 ranks, got " + std::to_string(size);
  if (!error.empty()) {
    if (rank == 0) std::fprintf(stderr, "mpi_bandwidth: %s\n", error.c_str());
    MPI_Finalize();
    return 2;
  }
  if (rank == 0)
    std::printf("mpi_bandwidth: rank 0 -> rank 1, %d MiB x %d messages, %d trials\n", o.mib, o.reps,
                o.trials);
  const int rc = run(rank, o);
  MPI_Finalize();
  return rc;
}
