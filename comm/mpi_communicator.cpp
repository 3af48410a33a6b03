#include "strata/comm/mpi_communicator.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "strata/comm/mpi_check.h"
#include "strata/core/error.h"

namespace strata {
namespace {

// MPI counts are int: larger buffers go as several calls or messages of at most this.
constexpr std::int64_t kMaxChunkBytes = std::int64_t{1} << 30;

MPI_Datatype mpi_type(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return MPI_FLOAT;
    case DType::kFloat64:
      return MPI_DOUBLE;
    case DType::kInt32:
      return MPI_INT32_T;
    case DType::kInt64:
      return MPI_INT64_T;
    case DType::kUInt8:
      return MPI_UINT8_T;
  }
  throw_internal_error(__FILE__, __LINE__, "unknown dtype ", static_cast<int>(dtype));
}

int as_int(std::int64_t value, const char* operation) {
  STRATA_REQUIRE(value <= INT_MAX, operation, ": ", value,
                 " bytes exceeds INT_MAX, which the MPI communicator does not split here");
  return static_cast<int>(value);
}

// Chunk c of a buffer of `total` bytes cut into kMaxChunkBytes pieces; 0 bytes is one chunk.
std::int64_t chunk_count(std::int64_t total) {
  return std::max<std::int64_t>(1, (total + kMaxChunkBytes - 1) / kMaxChunkBytes);
}
int chunk_bytes(std::int64_t total, std::int64_t c) {
  return static_cast<int>(std::min(kMaxChunkBytes, total - c * kMaxChunkBytes));
}

struct MpiRequestState : RequestState {
  std::vector<MPI_Request> requests;
  std::vector<int> recv_bytes;  // expected size of each chunk; empty for a send
  int peer = 0;
  int tag = 0;
};

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm) {
  STRATA_MPI_CHECK(MPI_Comm_dup(comm, &comm_));
  STRATA_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  STRATA_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  STRATA_MPI_CHECK(MPI_Comm_size(comm_, &size_));
}

MpiCommunicator::~MpiCommunicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiCommunicator::abort(const std::string& message) {
  std::fprintf(stderr, "strata: rank %d: %s\n", rank_, message.c_str());
  std::fflush(stderr);
  MPI_Abort(comm_, 1);
  std::abort();
}

// OpenMPI 4.1's vectorized uint8 MPI_SUM saturates instead of wrapping, so uint8 sums go
// through int32 (exact for any rank count) and wrap modulo 256 like the in-process sum.
void MpiCommunicator::all_reduce_uint8(std::span<std::byte> data) {
  std::vector<std::int32_t> wide(data.size());
  std::transform(data.begin(), data.end(), wide.begin(),
                 [](std::byte b) { return std::to_integer<std::int32_t>(b); });
  do_all_reduce_sum(std::as_writable_bytes(std::span(wide)), DType::kInt32);
  std::transform(wide.begin(), wide.end(), data.begin(),
                 [](std::int32_t x) { return static_cast<std::byte>(x & 0xff); });
}

void MpiCommunicator::do_all_reduce_sum(std::span<std::byte> data, DType dtype) {
  if (dtype == DType::kUInt8) return all_reduce_uint8(data);
  const auto element = static_cast<std::int64_t>(dtype_size(dtype));
  const std::int64_t elements = static_cast<std::int64_t>(data.size()) / element;
  const std::int64_t max_elements = kMaxChunkBytes / element;
  for (std::int64_t first = 0; first < elements; first += max_elements) {
    const auto count = static_cast<int>(std::min(max_elements, elements - first));
    std::byte* at = data.data() + first * element;
    STRATA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, at, count, mpi_type(dtype), MPI_SUM, comm_));
  }
}

void MpiCommunicator::do_all_to_all_v(std::span<const std::byte> send,
                                      std::span<const std::int64_t> send_counts,
                                      std::span<std::byte> recv,
                                      std::span<const std::int64_t> recv_counts) {
  std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
  std::int64_t send_offset = 0, recv_offset = 0;
  for (int p = 0; p < size_; ++p) {
    sd[p] = as_int(send_offset, "all_to_all_v send displacement");
    rd[p] = as_int(recv_offset, "all_to_all_v recv displacement");
    sc[p] = as_int(send_counts[p], "all_to_all_v send count");
    rc[p] = as_int(recv_counts[p], "all_to_all_v recv count");
    send_offset += send_counts[p];
    recv_offset += recv_counts[p];
  }
  STRATA_MPI_CHECK(MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_BYTE, recv.data(),
                                 rc.data(), rd.data(), MPI_BYTE, comm_));
}

void MpiCommunicator::do_all_gather(std::span<const std::byte> mine, std::span<std::byte> all) {
  const int bytes = as_int(static_cast<std::int64_t>(mine.size()), "all_gather");
  as_int(static_cast<std::int64_t>(all.size()), "all_gather total");
  STRATA_MPI_CHECK(MPI_Allgather(mine.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, comm_));
}

void MpiCommunicator::do_broadcast(std::span<std::byte> data, int root) {
  const auto total = static_cast<std::int64_t>(data.size());
  for (std::int64_t offset = 0; offset < total; offset += kMaxChunkBytes) {
    const auto bytes = static_cast<int>(std::min(kMaxChunkBytes, total - offset));
    STRATA_MPI_CHECK(MPI_Bcast(data.data() + offset, bytes, MPI_BYTE, root, comm_));
  }
}

void MpiCommunicator::do_barrier() {
  STRATA_MPI_CHECK(MPI_Barrier(comm_));
}

std::unique_ptr<RequestState> MpiCommunicator::do_isend(int peer, int tag,
                                                        std::span<const std::byte> data) {
  auto state = std::make_unique<MpiRequestState>();
  const auto total = static_cast<std::int64_t>(data.size());
  const std::int64_t chunks = chunk_count(total);
  state->requests.resize(static_cast<std::size_t>(chunks));
  for (std::int64_t c = 0; c < chunks; ++c) {
    STRATA_MPI_CHECK(MPI_Isend(data.data() + c * kMaxChunkBytes, chunk_bytes(total, c), MPI_BYTE,
                               peer, tag, comm_, &state->requests[c]));
  }
  return state;
}

std::unique_ptr<RequestState> MpiCommunicator::do_irecv(int peer, int tag,
                                                        std::span<std::byte> data) {
  auto state = std::make_unique<MpiRequestState>();
  state->peer = peer;
  state->tag = tag;
  const auto total = static_cast<std::int64_t>(data.size());
  const std::int64_t chunks = chunk_count(total);
  state->requests.resize(static_cast<std::size_t>(chunks));
  for (std::int64_t c = 0; c < chunks; ++c) {
    state->recv_bytes.push_back(chunk_bytes(total, c));
    STRATA_MPI_CHECK(MPI_Irecv(data.data() + c * kMaxChunkBytes, state->recv_bytes.back(), MPI_BYTE,
                               peer, tag, comm_, &state->requests[c]));
  }
  return state;
}

// Any call into MPI runs its progress engine; a probe that finds nothing costs least.
void MpiCommunicator::do_progress() {
  int flag = 0;
  STRATA_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, MPI_STATUS_IGNORE));
}

void MpiCommunicator::do_wait(RequestState& state) {
  auto& mpi = dynamic_cast<MpiRequestState&>(state);
  std::vector<MPI_Status> statuses(mpi.requests.size());
  STRATA_MPI_CHECK(
      MPI_Waitall(static_cast<int>(mpi.requests.size()), mpi.requests.data(), statuses.data()));
  for (std::size_t c = 0; c < mpi.recv_bytes.size(); ++c) {
    int received = 0;
    STRATA_MPI_CHECK(MPI_Get_count(&statuses[c], MPI_BYTE, &received));
    STRATA_REQUIRE(received == mpi.recv_bytes[c], "recv: rank ", mpi.peer, " sent ", received,
                   " bytes with tag ", mpi.tag, ", rank ", rank_, " expects ", mpi.recv_bytes[c]);
  }
}

std::unique_ptr<Communicator> MpiCommunicator::do_split(int color, int key) {
  MPI_Comm split = MPI_COMM_NULL;
  STRATA_MPI_CHECK(MPI_Comm_split(comm_, color, key, &split));
  auto child = std::make_unique<MpiCommunicator>(split);
  STRATA_MPI_CHECK(MPI_Comm_free(&split));
  return child;
}

}  // namespace strata
