// load_ogb on a directory made from the input (see ogb_layout.h): the count, feature,
// label, edge and split readers and the gzip line reader under them. A part may be
// plain text or gzip (zlib reads both); a missing part leaves its file absent.
#include <filesystem>

#include "fuzz_util.h"
#include "ogb_layout.h"
#include "strata/datasets/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::fuzz;
  const fs::path dir = scratch() / "ogb";
  fs::remove_all(dir);
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  for (std::string_view file : kOgbFiles) {
    const std::size_t end = rest.find(kOgbSeparator);
    write_bytes(dir / file, rest.data(), std::min(end, rest.size()));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + kOgbSeparator.size());
  }
  expect_input_errors_only([&] { strata::load_ogb(dir.string(), {}); });
  return 0;
}
