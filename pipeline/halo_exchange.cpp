#include "strata/pipeline/halo_exchange.h"

#include <algorithm>

namespace strata {
namespace {

std::int64_t total_rows(const std::vector<std::vector<LocalId>>& lists) {
  std::int64_t n = 0;
  for (const auto& list : lists) n += static_cast<std::int64_t>(list.size());
  return n;
}

std::span<std::byte> as_bytes(std::vector<float>& v) {
  return std::as_writable_bytes(std::span(v));
}

}  // namespace

HaloExchange::HaloExchange(const LocalGraph& graph, Communicator& comm)
    : HaloExchange(graph.plan, graph.owned, graph.halo, comm) {
  STRATA_CHECK(graph.part == comm.rank(), "rank ", comm.rank(), " holds part ", graph.part);
}

HaloExchange::HaloExchange(const HaloPlan& plan, LocalId owned, LocalId halo, Communicator& comm)
    : plan_(plan), comm_(comm), owned_(owned), halo_(halo) {
  STRATA_CHECK(static_cast<int>(plan_.send.size()) == comm.size() &&
                   static_cast<int>(plan_.recv.size()) == comm.size(),
               "halo plan for ", plan_.send.size(), " parts on ", comm.size(), " ranks");
}

void HaloExchange::forward(MatrixView rows, CommCategory category) {
  exchange(plan_.send, plan_.recv, rows, category, false);
}

void HaloExchange::backward(MatrixView rows, CommCategory category) {
  exchange(plan_.recv, plan_.send, rows, category, true);
}

// Sends the rows named by `outgoing` (peer by peer) and copies, or adds, what arrives
// into the rows named by `incoming`.
void HaloExchange::exchange(const Lists& outgoing, const Lists& incoming, MatrixView rows,
                            CommCategory category, bool add) {
  STRATA_CHECK(rows.rows == owned_ + halo_, "halo exchange on ", rows.rows, " rows, expected ",
               owned_ + halo_);
  const std::int64_t w = rows.cols;
  counts(outgoing, w, send_bytes_);
  counts(incoming, w, recv_bytes_);
  send_buffer_.resize(static_cast<std::size_t>(total_rows(outgoing) * w));
  float* out = send_buffer_.data();
  for (const auto& list : outgoing)
    for (LocalId l : list) out = std::copy(rows.row(l), rows.row(l) + w, out);
  recv_buffer_.resize(static_cast<std::size_t>(total_rows(incoming) * w));
  comm_.all_to_all_v(as_bytes(send_buffer_), send_bytes_, as_bytes(recv_buffer_), recv_bytes_,
                     category);
  const float* in = recv_buffer_.data();
  for (const auto& list : incoming)
    for (LocalId l : list) {
      float* row = rows.row(l);
      for (std::int64_t c = 0; c < w; ++c) row[c] = add ? row[c] + in[c] : in[c];
      in += w;
    }
}

void HaloExchange::counts(const Lists& lists, std::int64_t width, std::vector<std::int64_t>& out) {
  out.resize(lists.size());
  for (std::size_t q = 0; q < lists.size(); ++q)
    out[q] = static_cast<std::int64_t>(lists[q].size()) * width * 4;
}

}  // namespace strata
