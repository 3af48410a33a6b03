// read_file and SectionReader the way record readers use them (sections_layout.h): a
// count read from the record sizes a later section, a bounded name, and a list whose
// only bound is far larger than any file.
#include "fuzz_util.h"
#include "sections_layout.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::fuzz;
  read_with_and_without_checksums("record.bin", data, size, [](const std::string& path) {
    expect_input_errors_only([&] { read_fuzz_record(path); });
  });
  return 0;
}
