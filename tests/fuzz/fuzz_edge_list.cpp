// load_dataset on an edge-list file (plain or gzip): parsing, id compaction, the CSR
// build and the synthetic features, labels and split the reader adds.
#include "fuzz_util.h"
#include "strata/datasets/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::fuzz;
  const std::string path = input_file("graph.txt", data, size);
  strata::LoadOptions options;
  options.features = 4;
  options.classes = 3;
  expect_input_errors_only([&] { strata::load_dataset(path, options); });
  return 0;
}
