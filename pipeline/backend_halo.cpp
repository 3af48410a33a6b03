#include "strata/pipeline/backend_halo.h"

namespace strata {
namespace {

void ensure_bytes(kernels::Buffer& b, std::size_t bytes, const kernels::Backend& backend) {
  if (b.bytes() < bytes) b = kernels::Buffer(backend, bytes);
}

}  // namespace

BackendHaloAggregator::BackendHaloAggregator(const LocalGraph& graph, Communicator& data,
                                             const kernels::Backend& backend)
    : data_(data), backend_(backend), owned_(graph.owned), halo_(graph.halo) {
  STRATA_CHECK(graph.part == data.rank() && static_cast<int>(graph.plan.send.size()) == data.size(),
               "BackendHaloAggregator: part ", graph.part, " of ", graph.plan.send.size(),
               " on rank ", data.rank(), " of ", data.size());
  const Csr a_hat = gcn_normalize(graph.adjacency, graph.degree_plus_one);
  a_hat_ = backend.sparse(a_hat.view());
  a_hat_transposed_ = backend.sparse(transpose(a_hat).view());
  send_ = side_of(graph.plan.send, backend);
  recv_ = side_of(graph.plan.recv, backend);
}

BackendHaloAggregator::Side BackendHaloAggregator::side_of(
    const std::vector<std::vector<LocalId>>& lists, const kernels::Backend& backend) {
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

void BackendHaloAggregator::forward(ConstMatrixView in_owned, MatrixView out_owned, int) {
  STRATA_CHECK(in_owned.rows == owned_, "aggregate: ", in_owned.rows, " rows, ", owned_, " owned");
  if (extended_.rows() != owned_ + halo_ || extended_.cols() != in_owned.cols)
    extended_ = kernels::Tensor(backend_, owned_ + halo_, in_owned.cols);
  backend_.copy(in_owned, extended_.view().rows_range(0, owned_));
  exchange(send_, recv_, extended_.view(),
           evaluation_ ? CommCategory::kEval : CommCategory::kHaloForward, false);
  a_hat_->multiply(extended_.view(), out_owned);
}

void BackendHaloAggregator::backward(ConstMatrixView grad_out_owned, MatrixView grad_in_owned,
                                     int) {
  if (extended_.rows() != owned_ + halo_ || extended_.cols() != grad_out_owned.cols)
    extended_ = kernels::Tensor(backend_, owned_ + halo_, grad_out_owned.cols);
  a_hat_transposed_->multiply(grad_out_owned, extended_.view());
  exchange(recv_, send_, extended_.view(), CommCategory::kHaloBackward, true);
  backend_.copy(extended_.view().rows_range(0, owned_), grad_in_owned);
}

// Packs the rows `out` lists, exchanges them, and writes (or adds, peer by peer) what
// arrives into the rows `in` lists.
void BackendHaloAggregator::exchange(Side& out, Side& in, MatrixView rows, CommCategory category,
                                     bool add) {
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
