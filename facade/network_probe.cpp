// probe_network, write_network, read_network (include/strata/plan.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "number_file.h"
#include "strata/core/error.h"
#include "strata/plan.h"
#include "workers_impl.h"

namespace strata {
namespace {

constexpr std::size_t kStreamBytes = 16 << 20;
constexpr std::size_t kAllReduceValues = 512 << 10;  // 4 MiB of doubles
constexpr int kTrials = 3, kPings = 100;
constexpr int kLargestGroup = 256;  // group all-reduce rates a network file may hold

std::string group_name(int ranks) {
  return "allreduce_bytes_per_s_group_" + std::to_string(ranks);
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The slowest rank's time of `run`, best of the trials; every rank returns it.
template <typename F>
double best_collective_seconds(Communicator& comm, F&& run) {
  double best = 1e30;
  for (int trial = 0; trial < kTrials; ++trial) {
    comm.barrier();
    const double start = now();
    run();
    double seconds = now() - start;
    std::vector<double> all(static_cast<std::size_t>(comm.size()));
    comm.all_gather(std::as_bytes(std::span(&seconds, 1)), std::as_writable_bytes(std::span(all)),
                    CommCategory::kControl);
    best = std::min(best, *std::max_element(all.begin(), all.end()));
  }
  return best;
}

double stream_rate(Communicator& comm) {
  const int p = comm.size(), r = comm.rank();
  std::vector<std::byte> out(kStreamBytes, std::byte{1}), in(kStreamBytes);
  const double seconds = best_collective_seconds(comm, [&] {
    Request sent = comm.isend((r + 1) % p, 1, out, CommCategory::kControl);
    comm.recv((r + p - 1) % p, 1, in, CommCategory::kControl);
    comm.wait(sent);
  });
  return static_cast<double>(kStreamBytes) / seconds;
}

double latency(Communicator& comm) {
  std::byte ball[8]{};
  const double seconds = best_collective_seconds(comm, [&] {
    for (int i = 0; i < kPings && comm.rank() < 2; ++i) {
      if (comm.rank() == 0) {
        comm.send(1, 2, ball, CommCategory::kControl);
        comm.recv(1, 2, ball, CommCategory::kControl);
      } else {
        comm.recv(0, 2, ball, CommCategory::kControl);
        comm.send(0, 2, ball, CommCategory::kControl);
      }
    }
  });
  return seconds / (2 * kPings);
}

// The ring rate of `group`'s sum (the whole job's, or this rank's group while every group
// sums at once), timed across the job.
double allreduce_rate(Communicator& job, Communicator& group) {
  std::vector<double> values(kAllReduceValues, 1.0);
  const double seconds = best_collective_seconds(job, [&] {
    group.all_reduce_sum(std::as_writable_bytes(std::span(values)), DType::kFloat64,
                         CommCategory::kControl);
  });
  const double p = group.size();
  return 2 * (p - 1) / p * static_cast<double>(kAllReduceValues) * sizeof(double) / seconds;
}

// Groups of `ranks` consecutive ranks all-reducing at once, each its own sum: a hybrid
// layout's stages sum their gradients so.
double group_allreduce_rate(Communicator& comm, int ranks) {
  const std::unique_ptr<Communicator> group = comm.split(comm.rank() / ranks, comm.rank());
  return allreduce_rate(comm, *group);
}

}  // namespace

NetworkFacts probe_network(Workers& workers) {
  Communicator& comm = communicator_of(workers);
  STRATA_REQUIRE(comm.size() >= 2, "the network probe needs 2 or more ranks (one per host), ",
                 "got ", comm.size(), ": run it under mpirun");
  NetworkFacts f;
  f.link_bytes_per_s = stream_rate(comm);
  f.latency_s = latency(comm);
  f.allreduce_bytes_per_s = allreduce_rate(comm, comm);
  f.ranks = comm.size();
  for (int g = 2; g < f.ranks && g <= kLargestGroup; ++g)
    if (f.ranks % g == 0) f.group_allreduce.push_back({g, group_allreduce_rate(comm, g)});
  return f;
}

void write_network(const std::string& path, const NetworkFacts& f) {
  std::ofstream out(path);
  out.precision(6);
  out << "# strata plan --probe-network: " << f.ranks << " ranks\n"
      << "link_bytes_per_s " << f.link_bytes_per_s << "\nlatency_s " << f.latency_s
      << "\nallreduce_bytes_per_s " << f.allreduce_bytes_per_s << "\n";
  for (const GroupRate& g : f.group_allreduce)
    out << group_name(g.ranks) << " " << g.bytes_per_s << "\n";
  STRATA_REQUIRE(out.good(), "--probe-network ", path, ": cannot be written");
}

NetworkFacts read_network(const std::string& path) {
  std::vector<std::string> groups;
  for (int g = 2; g <= kLargestGroup; ++g) groups.push_back(group_name(g));
  const auto n = read_numbers(
      path, "--network", {"link_bytes_per_s", "latency_s", "allreduce_bytes_per_s"}, true, groups);
  NetworkFacts f;
  f.link_bytes_per_s = n.at("link_bytes_per_s"), f.latency_s = n.at("latency_s");
  f.allreduce_bytes_per_s = n.at("allreduce_bytes_per_s");
  for (int g = 2; g <= kLargestGroup; ++g)
    if (n.count(group_name(g))) f.group_allreduce.push_back({g, n.at(group_name(g))});
  return f;
}

}  // namespace strata
