#include "strata/layers/block_entries.h"

#include <span>
#include <vector>

namespace strata {
namespace {

template <typename T>
kernels::Buffer copy_of(const kernels::Backend& backend, const std::vector<T>& host) {
  return kernels::to_backend<T>(backend, std::span<const T>(host));
}

}  // namespace

BlockEntries::BlockEntries(const kernels::Backend& backend, const Csr& a, const Block& b,
                           const GlobalId* row_ids, const GlobalId* column_ids) {
  STRATA_CHECK(0 <= b.begin && b.begin <= b.end && b.end <= a.rows, "entries of rows [", b.begin,
               ", ", b.end, ") of ", a.rows);
  const EdgeOffset first = a.offsets[b.begin], count = a.offsets[b.end] - first;
  std::vector<EdgeOffset> offsets(static_cast<std::size_t>(b.size()) + 1);
  for (LocalId r = 0; r <= b.size(); ++r) offsets[r] = a.offsets[b.begin + r] - first;
  // Entries by column: count, then place them in row order.
  std::vector<EdgeOffset> start(static_cast<std::size_t>(a.cols) + 1, 0);
  for (EdgeOffset e = first; e < first + count; ++e) ++start[a.indices[e] + 1];
  std::vector<LocalId> touched;
  std::vector<EdgeOffset> touched_offsets{0};
  for (LocalId c = 0; c < a.cols; ++c) {
    if (start[c + 1] > 0) {
      touched.push_back(c);
      touched_offsets.push_back(touched_offsets.back() + start[c + 1]);
    }
    start[c + 1] += start[c];
  }
  std::vector<EdgeOffset> by_column(static_cast<std::size_t>(count));
  std::vector<LocalId> by_column_rows(static_cast<std::size_t>(count));
  for (LocalId r = 0; r < b.size(); ++r)
    for (EdgeOffset e = offsets[r]; e < offsets[r + 1]; ++e) {
      const EdgeOffset at = start[a.indices[first + e]]++;
      by_column[at] = e;
      by_column_rows[at] = r;
    }
  offsets_ = copy_of(backend, offsets);
  const LocalId* columns = a.indices.data() + first;
  if (!backend.host_memory()) {
    columns_ = kernels::to_backend<LocalId>(
        backend, std::span<const LocalId>(columns, static_cast<std::size_t>(count)));
    columns = columns_.as<LocalId>();
  }
  touched_columns_ = copy_of(backend, touched);
  touched_offsets_ = copy_of(backend, touched_offsets);
  by_column_ = copy_of(backend, by_column);
  by_column_rows_ = copy_of(backend, by_column_rows);
  edges_ = {b.size(),
            count,
            first,
            offsets_.as<EdgeOffset>(),
            columns,
            static_cast<std::int64_t>(touched.size()),
            touched_columns_.as<LocalId>(),
            touched_offsets_.as<EdgeOffset>(),
            by_column_.as<EdgeOffset>(),
            by_column_rows_.as<LocalId>(),
            row_ids,
            column_ids};
}

}  // namespace strata
