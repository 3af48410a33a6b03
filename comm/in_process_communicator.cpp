#include "strata/comm/in_process_communicator.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "strata/core/error.h"

namespace strata {
namespace {

std::string describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

// Shared by every thread and every sub-communicator of one run_in_process call.
struct World {
  std::mutex mutex;
  std::condition_variable changed;
  bool aborted = false;
  std::string abort_reason;
  int first_rank = -1;
  std::exception_ptr first_error;

  void fail(int rank, std::exception_ptr error) {
    const std::lock_guard lock(mutex);
    if (!first_error) {
      first_error = error;
      first_rank = rank;
      abort_reason = cat("rank ", rank, " failed: ", describe(error));
    }
    aborted = true;
    changed.notify_all();
  }

  template <typename Ready>
  void wait(std::unique_lock<std::mutex>& lock, Ready ready) {
    changed.wait(lock, [&] { return aborted || ready(); });
    if (!ready()) throw_if_aborted();
  }

  void throw_if_aborted() const {
    if (aborted) throw Error(ErrorKind::kInternal, cat("in-process communicator: ", abort_reason));
  }
};

enum class Op { kAllReduce, kAllToAllV, kAllGather, kBroadcast, kBarrier, kSplit };

struct Posting {
  Op op = Op::kBarrier;
  const void* data = nullptr;  // op-specific struct, valid until the collective's end
};

struct MessageKey {
  int source, dest, tag;
  auto operator<=>(const MessageKey&) const = default;
};

// One communicator's shared state: collective postings and point-to-point mailboxes.
struct Group {
  Group(std::shared_ptr<World> w, int ranks)
      : world(std::move(w)), size(ranks), postings(ranks), split_results(ranks) {}
  std::shared_ptr<World> world;
  const int size;
  std::vector<Posting> postings;
  std::vector<std::shared_ptr<Group>> split_results;
  int arrived = 0;
  std::uint64_t generation = 0;
  std::map<MessageKey, std::int64_t> sends_posted, recvs_posted;
  std::map<std::pair<MessageKey, std::int64_t>, std::vector<std::byte>> messages;
};

struct SendState : RequestState {};

struct RecvState : RequestState {
  RecvState(MessageKey k, std::int64_t s, std::span<std::byte> d) : key(k), sequence(s), data(d) {}
  MessageKey key;
  std::int64_t sequence;
  std::span<std::byte> data;
};

struct AllToAllPosting {
  std::span<const std::byte> send;
  std::span<const std::int64_t> send_counts;
};

struct BroadcastPosting {
  std::span<std::byte> data;
  int root;
};

struct SplitPosting {
  int color, key;
};

template <typename T>
void add_elements(std::byte* sum, const std::byte* x, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    T a, b;
    std::memcpy(&a, sum + i * sizeof(T), sizeof(T));
    std::memcpy(&b, x + i * sizeof(T), sizeof(T));
    a = static_cast<T>(a + b);
    std::memcpy(sum + i * sizeof(T), &a, sizeof(T));
  }
}

void add_into(std::span<std::byte> sum, std::span<const std::byte> x, DType dtype) {
  const std::size_t n = sum.size() / dtype_size(dtype);
  switch (dtype) {
    case DType::kFloat32:
      return add_elements<float>(sum.data(), x.data(), n);
    case DType::kFloat64:
      return add_elements<double>(sum.data(), x.data(), n);
    case DType::kInt32:
      return add_elements<std::int32_t>(sum.data(), x.data(), n);
    case DType::kInt64:
      return add_elements<std::int64_t>(sum.data(), x.data(), n);
    case DType::kUInt8:
      return add_elements<std::uint8_t>(sum.data(), x.data(), n);
  }
}

void copy_bytes(std::span<std::byte> to, std::span<const std::byte> from) {
  STRATA_CHECK(to.size() == from.size(), to.size(), " != ", from.size());
  if (!from.empty()) std::memcpy(to.data(), from.data(), from.size());
}

class InProcessCommunicator : public Communicator {
 public:
  InProcessCommunicator(std::shared_ptr<Group> group, int rank)
      : group_(std::move(group)), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return group_->size; }

  [[noreturn]] void abort(const std::string& message) override {
    const std::string what = cat("rank ", rank_, " called abort: ", message);
    world().fail(rank_, std::make_exception_ptr(Error(ErrorKind::kInternal, what)));
    throw Error(ErrorKind::kInternal, what);
  }

 protected:
  void do_all_reduce_sum(std::span<std::byte> data, DType dtype) override {
    const std::span<const std::byte> mine = data;
    std::vector<std::byte> sum(data.size());
    collective(Op::kAllReduce, &mine, [&](int p, const void* posted) {
      const auto& x = *static_cast<const std::span<const std::byte>*>(posted);
      STRATA_REQUIRE(x.size() == data.size(), "all_reduce_sum: rank ", p, " has ", x.size(),
                     " bytes, rank ", rank_, " has ", data.size());
      if (p == 0)
        copy_bytes(sum, x);
      else
        add_into(sum, x, dtype);
    });
    copy_bytes(data, sum);
  }

  void do_all_to_all_v(std::span<const std::byte> send, std::span<const std::int64_t> send_counts,
                       std::span<std::byte> recv,
                       std::span<const std::int64_t> recv_counts) override {
    const AllToAllPosting mine{send, send_counts};
    std::size_t recv_offset = 0;
    collective(Op::kAllToAllV, &mine, [&](int p, const void* posted) {
      const auto& x = *static_cast<const AllToAllPosting*>(posted);
      const auto begin = x.send_counts.begin();
      const auto offset =
          static_cast<std::size_t>(std::accumulate(begin, begin + rank_, std::int64_t{0}));
      const auto bytes = static_cast<std::size_t>(x.send_counts[rank_]);
      STRATA_REQUIRE(x.send_counts[rank_] == recv_counts[p], "all_to_all_v: rank ", p, " sends ",
                     bytes, " bytes to rank ", rank_, ", which expects ", recv_counts[p]);
      copy_bytes(recv.subspan(recv_offset, bytes), x.send.subspan(offset, bytes));
      recv_offset += bytes;
    });
  }

  void do_all_gather(std::span<const std::byte> mine, std::span<std::byte> all) override {
    collective(Op::kAllGather, &mine, [&](int p, const void* posted) {
      const auto& x = *static_cast<const std::span<const std::byte>*>(posted);
      STRATA_REQUIRE(x.size() == mine.size(), "all_gather: rank ", p, " has ", x.size(),
                     " bytes, rank ", rank_, " has ", mine.size());
      copy_bytes(all.subspan(static_cast<std::size_t>(p) * mine.size(), mine.size()), x);
    });
  }

  void do_broadcast(std::span<std::byte> data, int root) override {
    const BroadcastPosting mine{data, root};
    collective(Op::kBroadcast, &mine, [&](int p, const void* posted) {
      const auto& x = *static_cast<const BroadcastPosting*>(posted);
      STRATA_REQUIRE(x.root == root, "broadcast: rank ", p, " has root ", x.root, ", rank ", rank_,
                     " has root ", root);
      STRATA_REQUIRE(x.data.size() == data.size(), "broadcast: rank ", p, " has ", x.data.size(),
                     " bytes, rank ", rank_, " has ", data.size());
      if (p == root && p != rank_) copy_bytes(data, x.data);
    });
  }

  void do_barrier() override {
    collective(Op::kBarrier, nullptr, [](int, const void*) {});
  }

  std::unique_ptr<RequestState> do_isend(int peer, int tag,
                                         std::span<const std::byte> data) override {
    const std::lock_guard lock(world().mutex);
    world().throw_if_aborted();
    const MessageKey key{rank_, peer, tag};
    const std::int64_t sequence = group_->sends_posted[key]++;
    group_->messages[{key, sequence}].assign(data.begin(), data.end());
    world().changed.notify_all();
    return std::make_unique<SendState>();
  }

  std::unique_ptr<RequestState> do_irecv(int peer, int tag, std::span<std::byte> data) override {
    const std::lock_guard lock(world().mutex);
    const MessageKey key{peer, rank_, tag};
    return std::make_unique<RecvState>(key, group_->recvs_posted[key]++, data);
  }

  void do_wait(RequestState& state) override {
    auto* recv = dynamic_cast<RecvState*>(&state);
    if (recv == nullptr) return;  // sends are buffered when posted
    std::unique_lock lock(world().mutex);
    const auto id = std::make_pair(recv->key, recv->sequence);
    world().wait(lock, [&] { return group_->messages.contains(id); });
    const std::vector<std::byte> message = std::move(group_->messages.at(id));
    group_->messages.erase(id);
    lock.unlock();
    STRATA_REQUIRE(message.size() == recv->data.size(), "recv: rank ", recv->key.source, " sent ",
                   message.size(), " bytes with tag ", recv->key.tag, ", rank ", rank_, " expects ",
                   recv->data.size());
    copy_bytes(recv->data, message);
  }

  std::unique_ptr<Communicator> do_split(int color, int key) override;

 private:
  World& world() { return *group_->world; }

  // Every rank posts, waits for all, reads each posting in rank order through `read`, and
  // waits again so no posting goes away while another rank may still read it. Reading never
  // blocks, so that second wait ignores aborts and even a rank whose read threw takes it.
  template <typename Read>
  void collective(Op op, const void* mine, Read read) {
    std::unique_lock lock(world().mutex);
    group_->postings[rank_] = {op, mine};
    arrive(lock, true);
    lock.unlock();
    std::exception_ptr error;
    try {
      read_postings(op, read);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    arrive(lock, false);
    if (error) std::rethrow_exception(error);
  }

  template <typename Read>
  void read_postings(Op op, Read& read) {
    for (int p = 0; p < size(); ++p) {
      const Posting& posting = group_->postings[p];
      STRATA_REQUIRE(posting.op == op, "in-process communicator: rank ", p,
                     " is in a different collective than rank ", rank_);
      read(p, posting.data);
    }
  }

  // Once every rank has arrived the collective goes on, even if the world aborts meanwhile.
  void arrive(std::unique_lock<std::mutex>& lock, bool abortable) {
    if (abortable) world().throw_if_aborted();
    const std::uint64_t generation = group_->generation;
    const auto passed = [&] { return group_->generation != generation; };
    if (++group_->arrived == size()) {
      group_->arrived = 0;
      ++group_->generation;
      world().changed.notify_all();
    } else if (abortable) {
      world().wait(lock, passed);
    } else {
      world().changed.wait(lock, passed);
    }
  }

  std::shared_ptr<Group> group_;
  int rank_;
};

std::unique_ptr<Communicator> InProcessCommunicator::do_split(int color, int key) {
  const SplitPosting mine{color, key};
  std::vector<std::tuple<int, int>> members;  // (key, parent rank) of my color
  collective(Op::kSplit, &mine, [&](int p, const void* posted) {
    const auto& x = *static_cast<const SplitPosting*>(posted);
    if (x.color == color) members.emplace_back(x.key, p);
  });
  std::sort(members.begin(), members.end());
  const int leader = std::get<1>(members.front());
  if (leader == rank_) {
    const auto child = std::make_shared<Group>(group_->world, static_cast<int>(members.size()));
    const std::lock_guard lock(world().mutex);
    group_->split_results[leader] = child;
  }
  do_barrier();  // the leaders have published their groups
  const auto me = std::find(members.begin(), members.end(), std::tuple{key, rank_});
  const auto child_rank = static_cast<int>(me - members.begin());
  const std::lock_guard lock(world().mutex);
  return std::make_unique<InProcessCommunicator>(group_->split_results[leader], child_rank);
}

[[noreturn]] void rethrow_naming_rank(int rank, const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    throw Error(e.kind(), cat("rank ", rank, ": ", e.what()));
  } catch (...) {
    throw Error(ErrorKind::kInternal, cat("rank ", rank, ": ", describe(error)));
  }
}

}  // namespace

void run_in_process(int ranks, const std::function<void(Communicator&)>& body) {
  STRATA_REQUIRE(ranks >= 1, "run_in_process: need at least 1 rank, got ", ranks);
  const auto world = std::make_shared<World>();
  const auto group = std::make_shared<Group>(world, ranks);
  std::vector<std::thread> threads;
  try {
    for (int r = 0; r < ranks; ++r) {
      threads.emplace_back([&, r] {
        try {
          InProcessCommunicator comm(group, r);
          body(comm);
        } catch (...) {
          world->fail(r, std::current_exception());
        }
      });
    }
  } catch (...) {  // could not start a thread: stop the started ones, then report
    world->fail(static_cast<int>(threads.size()), std::current_exception());
  }
  for (std::thread& t : threads) t.join();
  if (world->first_error) rethrow_naming_rank(world->first_rank, world->first_error);
}

std::unique_ptr<Communicator> make_solo_communicator() {
  return std::make_unique<InProcessCommunicator>(
      std::make_shared<Group>(std::make_shared<World>(), 1), 0);
}

}  // namespace strata
