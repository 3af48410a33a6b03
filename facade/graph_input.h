// The three sources a GraphInput may name.
#pragma once
#include <string>
#include <variant>

#include "strata/graph.h"

namespace strata {

struct DatasetSource {
  std::string spec;
  DatasetOptions options;
};
struct ShardDirectory {
  std::string dir;
};

struct GraphInput::Source {
  std::variant<DatasetSource, ShardDirectory, GraphSpans> what;
};

}  // namespace strata
