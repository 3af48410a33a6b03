// The entries of a block of rows of a host CSR as the attention kernels read them
// (kernels::EdgeBlock), in a backend's memory: the rows' offsets from 0, their columns,
// and the same entries column by column, rows ascending within a column.
#pragma once
#include "strata/graph/csr.h"
#include "strata/kernels/backend.h"
#include "strata/layers/block_graph.h"

namespace strata {

class BlockEntries {
 public:
  // Rows [b.begin, b.end) of a. On a host backend the columns are a's own array (a must
  // outlive this); a device backend copies them. row_ids (b's rows) and column_ids (every
  // column) are in the backend's memory and outlive this.
  BlockEntries(const kernels::Backend& backend, const Csr& a, const Block& b,
               const GlobalId* row_ids, const GlobalId* column_ids);
  const kernels::EdgeBlock& edges() const { return edges_; }

 private:
  kernels::Buffer offsets_, columns_, touched_columns_, touched_offsets_, by_column_,
      by_column_rows_;
  kernels::EdgeBlock edges_;
};

}  // namespace strata
