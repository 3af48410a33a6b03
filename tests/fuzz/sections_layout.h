// The record the sections fuzz target reads (shared with the seed writer): a count, that
// many int64 values, a name of at most 256 chars, a float list with a huge bound, the end.
#pragma once
#include <cstdint>
#include <string>

#include "strata/core/sections.h"

namespace strata::fuzz {

inline constexpr const char* kSectionsMagic = "STRATAFZ";
inline constexpr std::uint32_t kSectionsVersion = 7;

inline void read_fuzz_record(const std::string& path) {
  const std::vector<std::byte> bytes = read_file(path);
  SectionReader r(bytes, path, kSectionsMagic, kSectionsVersion);
  const auto count = r.value<std::uint64_t>("count");
  r.section<std::int64_t>("values", count);
  r.section_up_to<char>("name", 256);
  r.section_up_to<float>("list", std::uint64_t{1} << 40);
  r.expect_end();
}

inline std::vector<std::byte> write_fuzz_record(std::uint64_t count, const std::string& name,
                                                std::uint64_t list_length) {
  SectionWriter w(kSectionsMagic, kSectionsVersion);
  w.value(count);
  w.section<std::int64_t>(std::vector<std::int64_t>(count, -3));
  w.section<char>(name);
  w.section<float>(std::vector<float>(list_length, 0.5f));
  return w.take();
}

}  // namespace strata::fuzz
