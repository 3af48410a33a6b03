// A graph handed over in memory (GraphSpans), copied into the modules' own types.
#pragma once
#include "strata/datasets/dataset.h"
#include "strata/graph.h"
#include "strata/shards/shard_assembly.h"

namespace strata {

// The whole graph: every array checked, the adjacency symmetrized and cleaned like a
// file's, features stored sparse when mostly zero (as the readers do).
Dataset dataset_from_spans(const GraphSpans& spans);

// This rank's rows (spans.row_ids given), for assemble_shard, which checks them.
ShardRows shard_rows_from_spans(const GraphSpans& spans);

}  // namespace strata
