// read_partition_file for graphs of one vertex fewer, as many and one more than the
// input has lines, each into 1, 2 and 3 parts.
#include <algorithm>

#include "fuzz_util.h"
#include "strata/partition/partition_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::fuzz;
  const std::string path = input_file("graph.part", data, size);
  const auto lines = static_cast<strata::GlobalId>(std::count(data, data + size, '\n'));
  for (strata::GlobalId n = std::max<strata::GlobalId>(lines - 1, 0); n <= lines + 1; ++n)
    for (int parts = 1; parts <= 3; ++parts)
      expect_input_errors_only([&] { strata::read_partition_file(path, n, parts); });
  return 0;
}
