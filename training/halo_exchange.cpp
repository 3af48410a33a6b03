#include "strata/training/halo_exchange.h"

namespace strata {
namespace {

void ensure_bytes(kernels::Buffer& b, std::size_t bytes, const kernels::Backend& backend) {
  if (b.bytes() < bytes) b = kernels::Buffer(backend, bytes);
}

}  // namespace

HaloExchange::HaloExchange(const HaloPlan& plan, Communicator& data,
                           const kernels::Backend& backend)
    : data_(data),
      backend_(backend),
      send_(side_of(plan.send, backend)),
      recv_(side_of(plan.recv, backend)) {
  STRATA_CHECK(
      static_cast<int>(plan.send.size()) == data.size() && plan.recv.size() == plan.send.size(),
      "HaloExchange: a plan for ", plan.send.size(), " peers on ", data.size(), " ranks");
}

HaloExchange::Side HaloExchange::side_of(const std::vector<std::vector<LocalId>>& lists,
                                         const kernels::Backend& backend) {
  Side side;
  std::vector<LocalId> flat;
  side.starts.push_back(0);
  for (const auto& list : lists) {
    flat.insert(flat.end(), list.begin(), list.end());
    side.starts.push_back(static_cast<std::int64_t>(flat.size()));
  }
  side.list = kernels::to_backend<LocalId>(backend, flat);
  return side;
}

// Packs the rows `out` lists, exchanges them, and writes (or adds, peer by peer) what
// arrives into the rows `in` lists.
void HaloExchange::exchange(Side& out, Side& in, MatrixView rows, CommCategory category, bool add) {
  if (data_.size() == 1) return;
  const std::int64_t w = rows.cols, row_bytes = w * 4;
  const auto peers = static_cast<std::size_t>(data_.size());
  send_bytes_.resize(peers);
  recv_bytes_.resize(peers);
  for (std::size_t q = 0; q < peers; ++q) {
    send_bytes_[q] = (out.starts[q + 1] - out.starts[q]) * row_bytes;
    recv_bytes_[q] = (in.starts[q + 1] - in.starts[q]) * row_bytes;
  }
  const auto send_total = static_cast<std::size_t>(out.starts.back() * row_bytes);
  const auto recv_total = static_cast<std::size_t>(in.starts.back() * row_bytes);
  ensure_bytes(send_buffer_, send_total, backend_);
  ensure_bytes(recv_buffer_, recv_total, backend_);
  backend_.gather_rows(rows, out.list.as<LocalId>(), out.starts.back(), send_buffer_.as<float>());
  data_.all_to_all_v({static_cast<const std::byte*>(send_buffer_.data()), send_total}, send_bytes_,
                     {static_cast<std::byte*>(recv_buffer_.data()), recv_total}, recv_bytes_,
                     category);
  if (!add) {
    backend_.scatter_rows(recv_buffer_.as<float>(), in.list.as<LocalId>(), in.starts.back(), rows,
                          false);
    return;
  }
  for (std::size_t q = 0; q < peers; ++q)  // a row may come from several peers
    backend_.scatter_rows(recv_buffer_.as<float>() + in.starts[q] * w,
                          in.list.as<LocalId>() + in.starts[q], in.starts[q + 1] - in.starts[q],
                          rows, true);
}

}  // namespace strata
