// Interior rows first: a one-chunk layout with a halo, or a graph-mode shard, numbers
// first the owned rows that read no halo column and that no other part reads, so that a
// layer computes them while the halo travels (block_rows.h). interior_first(RowLayout&) is
// declared with the layouts (row_layout.h).
#pragma once
#include "strata/shards/shard.h"

namespace strata {

// Renumbers a shard's owned rows interior first, as interior_first numbers a layout: its
// adjacency (halo columns keep their ids, each row its entries' order), features, labels,
// masks, global ids, degrees and send lists. A layout made from it is numbered so already
// (interior_first returns the identity), so the trainer reads the shard's features in
// place instead of a reordered copy.
void order_interior_first(Shard& shard);
// Whether the shard is numbered so (no interior row after a boundary row).
bool is_interior_first(const Shard& shard);

}  // namespace strata
