#include "graph_input.h"

namespace strata {

GraphInput GraphInput::dataset(std::string spec, DatasetOptions options) {
  return GraphInput(
      std::make_shared<const Source>(Source{DatasetSource{std::move(spec), std::move(options)}}));
}

GraphInput GraphInput::shard_files(std::string dir) {
  return GraphInput(std::make_shared<const Source>(Source{ShardDirectory{std::move(dir)}}));
}

GraphInput GraphInput::spans(GraphSpans spans) {
  return GraphInput(std::make_shared<const Source>(Source{std::move(spans)}));
}

}  // namespace strata
