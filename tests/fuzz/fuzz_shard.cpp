// read_shard on DIR/part-0-of-2.shard: every section, size and id of a rank's shard.
#include "fuzz_util.h"
#include "strata/shards/shard.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::fuzz;
  const std::string file = fs::path(strata::shard_path("shards", 0, 2)).string();
  read_with_and_without_checksums(file, data, size, [](const std::string& path) {
    const std::string dir = fs::path(path).parent_path().string();
    expect_input_errors_only([&] { strata::read_shard(dir, 0, 2); });
  });
  return 0;
}
