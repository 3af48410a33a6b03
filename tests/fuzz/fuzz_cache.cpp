// load_dataset on a FILE.strata binary cache (versions 1 and 2), then preprocessing.
#include "fuzz_util.h"
#include "strata/datasets/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::fuzz;
  read_with_and_without_checksums("data.strata", data, size, [](const std::string& path) {
    expect_input_errors_only([&] { strata::load_dataset(path, {}); });
  });
  return 0;
}
