#include "strata/training/halo_exchange.h"

#include "strata/core/random.h"

namespace strata {
namespace {

// One tag for every halo transfer: a communicator carries one exchange at a time, and
// messages between two ranks with one tag arrive in the order sent.
constexpr int kHaloTag = 71;

void ensure_bytes(kernels::Buffer& b, std::size_t bytes, const kernels::Backend& backend) {
  if (b.bytes() < bytes) b = kernels::Buffer(backend, bytes);
}

std::byte* bytes_at(kernels::Buffer& b, std::int64_t offset) {
  return static_cast<std::byte*>(b.data()) + offset;
}

}  // namespace

HaloExchange::HaloExchange(const HaloPlan& plan, Communicator& data,
                           const kernels::Backend& backend, RowCodecs codecs,
                           std::shared_ptr<HaloBuffers> buffers)
    : data_(data),
      backend_(backend),
      send_(side_of(plan.send, backend)),
      recv_(side_of(plan.recv, backend)),
      codecs_(codecs),
      buffers_(buffers ? std::move(buffers) : std::make_shared<HaloBuffers>()) {
  STRATA_CHECK(
      static_cast<int>(plan.send.size()) == data.size() && plan.recv.size() == plan.send.size(),
      "HaloExchange: a plan for ", plan.send.size(), " peers on ", data.size(), " ranks");
  const auto self = static_cast<std::size_t>(data.rank());
  STRATA_CHECK(plan.send[self].empty() && plan.recv[self].empty(),
               "HaloExchange: a plan that sends rows to their own rank");
}

HaloExchange::Side HaloExchange::side_of(const std::vector<std::vector<LocalId>>& lists,
                                         const kernels::Backend& backend) {
  Side side;
  std::vector<LocalId> flat;
  side.starts.push_back(0);
  for (const auto& list : lists) {
    flat.insert(flat.end(), list.begin(), list.end());
    side.starts.push_back(static_cast<std::int64_t>(flat.size()));
    side.first.push_back(list.empty() ? 0 : list.front());
    for (std::size_t i = 1; i < list.size(); ++i)
      side.in_runs = side.in_runs && list[i] == list[0] + static_cast<LocalId>(i);
  }
  side.list = kernels::to_backend<LocalId>(backend, flat);
  return side;
}

// Encodes the rows this rank sends (unless they are halo rows sent in place) and posts a
// receive and a send per peer that has rows for this one or wants some of it; what
// arrives packed goes to the rows the other side lists at finish().
void HaloExchange::start(MatrixView rows, CommCategory category, bool add, bool blocking) {
  STRATA_CHECK(!pending_, "a halo exchange started before the last one finished");
  if (data_.size() == 1) return;
  STRATA_CHECK(!buffers_->busy, "a halo exchange started while another sharing its buffers runs");
  buffers_->busy = true;
  const RowCodec codec = codec_of(add);
  const std::int64_t row_bytes = row_codec_bytes(codec, rows.cols);
  const bool in_place = halo_in_place(rows, codec);
  ensure_bytes(buffers_->owned, static_cast<std::size_t>(send_.starts.back() * row_bytes),
               backend_);
  if (!in_place)
    ensure_bytes(buffers_->halo, static_cast<std::size_t>(recv_.starts.back() * row_bytes),
                 backend_);
  const std::uint64_t key = hash_key(key_, exchanges_++);
  pending_ = Pending{rows, add, in_place, codec, category, Timer(), blocking};
  if (!add)
    backend_.encode_rows(rows, send_.list.as<LocalId>(), send_.starts.back(), codec, key,
                         buffers_->owned.data());
  else if (!in_place)
    backend_.encode_rows(rows, recv_.list.as<LocalId>(), recv_.starts.back(), codec, key,
                         buffers_->halo.data());
  post(add, row_bytes, category);
  if (blocking) data_.wait_all(requests_);
}

std::span<std::byte> HaloExchange::slice(const Side& side, int q, std::int64_t row_bytes) const {
  const auto p = static_cast<std::size_t>(q);
  const auto bytes = static_cast<std::size_t>((side.starts[p + 1] - side.starts[p]) * row_bytes);
  if (&side == &recv_ && pending_->in_place) {
    float* first = pending_->rows.row(recv_.first[p]);
    return {reinterpret_cast<std::byte*>(first), bytes};
  }
  kernels::Buffer& buffer = &side == &send_ ? buffers_->owned : buffers_->halo;
  return {bytes_at(buffer, side.starts[p] * row_bytes), bytes};
}

// Receives first, then sends, one per peer with rows; this rank's own slices are empty.
void HaloExchange::post(bool add, std::int64_t row_bytes, CommCategory category) {
  const Side& out = add ? recv_ : send_;
  const Side& in = add ? send_ : recv_;
  requests_.clear();
  for (int q = 0; q < data_.size(); ++q)
    if (const auto s = slice(in, q, row_bytes); !s.empty())
      requests_.push_back(data_.irecv(q, kHaloTag, s, category));
  for (int q = 0; q < data_.size(); ++q)
    if (const auto s = slice(out, q, row_bytes); !s.empty())
      requests_.push_back(data_.isend(q, kHaloTag, s, category));
  data_.flush();
}

void HaloExchange::finish() {
  if (!pending_) return;
  if (!pending_->waited)
    data_.counters().add_overlap(pending_->category, pending_->posted.seconds());
  data_.wait_all(requests_);  // a blocking start left them waited: nothing to do
  requests_.clear();
  const Pending p = *pending_;
  pending_.reset();
  buffers_->busy = false;  // (what arrived is read below, before any other exchange starts)
  const std::int64_t row_bytes = row_codec_bytes(p.codec, p.rows.cols);
  if (!p.add) {
    if (!p.in_place)
      backend_.decode_rows(buffers_->halo.data(), p.codec, recv_.list.as<LocalId>(),
                           recv_.starts.back(), p.rows, false);
    return;
  }
  for (std::size_t q = 0; q + 1 < send_.starts.size(); ++q)  // a row may come from several peers
    backend_.decode_rows(bytes_at(buffers_->owned, send_.starts[q] * row_bytes), p.codec,
                         send_.list.as<LocalId>() + send_.starts[q],
                         send_.starts[q + 1] - send_.starts[q], p.rows, true);
}

}  // namespace strata
