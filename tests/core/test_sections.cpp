#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "strata/core/sections.h"

using namespace strata;

namespace {

std::string temp_path(const char* name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

void write_sample(const std::string& path) {
  SectionWriter w("STRATAT1", 3);
  const std::vector<std::int64_t> values{1, -2, 3};
  w.section<std::int64_t>(values);
  w.value(std::int32_t{42});
  w.section<float>({});
  write_file_atomically(path, w.take());
}

struct Loaded {
  std::vector<std::byte> bytes;
  SectionReader reader;
  Loaded(const std::string& path, const char* magic, std::uint32_t version)
      : bytes(read_file(path)), reader(bytes, path, magic, version) {}
};

void flip_byte(const std::string& path, std::streamoff at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(at);
  char c = 0;
  f.read(&c, 1);
  f.seekp(at);
  c = static_cast<char>(c ^ 0x10);
  f.write(&c, 1);
}

}  // namespace

TEST_CASE("sections round trip and the temporary file is gone") {
  const std::string path = temp_path("strata_sections_ok.bin");
  write_sample(path);
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  Loaded loaded(path, "STRATAT1", 3);
  SectionReader& r = loaded.reader;
  CHECK(r.section<std::int64_t>("values", 3) == std::vector<std::int64_t>{1, -2, 3});
  CHECK(r.value<std::int32_t>("answer") == 42);
  CHECK(r.section_up_to<float>("empty", 10).empty());
  CHECK_NOTHROW(r.expect_end());
}

TEST_CASE("corrupt, truncated, foreign and mismatched files are named input errors") {
  const std::string path = temp_path("strata_sections_bad.bin");
  write_sample(path);
  CHECK_THROWS_WITH(Loaded(path, "OTHERMAG", 3), Catch::Contains("bad magic"));
  CHECK_THROWS_WITH(Loaded(path, "STRATAT1", 4), Catch::Contains("version 3"));
  {
    Loaded loaded(path, "STRATAT1", 3);
    CHECK_THROWS_WITH(loaded.reader.section<std::int64_t>("values", 4),
                      Catch::Contains("section values"));
  }
  flip_byte(path, 8 + 4 + 8 + 5);  // inside the first section's payload
  {
    Loaded loaded(path, "STRATAT1", 3);
    CHECK_THROWS_WITH(loaded.reader.section<std::int64_t>("values", 3),
                      Catch::Contains("checksum mismatch"));
  }
  write_sample(path);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 3);
  Loaded loaded(path, "STRATAT1", 3);
  loaded.reader.section<std::int64_t>("values", 3);
  loaded.reader.value<std::int32_t>("answer");
  CHECK_THROWS_WITH(loaded.reader.section_up_to<float>("empty", 10), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(loaded.reader.expect_end(), Catch::Contains("trailing"));
  CHECK_THROWS_AS(read_file(temp_path("strata_no_such_file.bin")), Error);
}

TEST_CASE("a failed atomic write leaves the old file in place") {
  const std::string path = temp_path("strata_sections_keep.bin");
  write_sample(path);
  const auto before = read_file(path);
  CHECK_THROWS_AS(write_file_atomically(temp_path("no_such_dir/x.bin"), before), Error);
  CHECK(read_file(path) == before);
}

TEST_CASE("a section size beyond the record is an input error before anything is allocated") {
  SectionWriter w("STRATAT1", 3);
  w.section<float>(std::vector<float>{1.0f, 2.0f});
  std::vector<std::byte> bytes = w.take();
  const std::uint64_t huge = std::uint64_t{1} << 40;  // 1 TiB: would throw bad_alloc
  std::memcpy(bytes.data() + 8 + 4, &huge, sizeof huge);
  SectionReader r(bytes, "rec", "STRATAT1", 3);
  CHECK_THROWS_WITH(
      r.section_up_to<float>("list", huge),
      Catch::Contains("rec: truncated at byte 20 (section list declares 1099511627776"));
}

TEST_CASE("a count whose byte size overflows does not match a small section") {
  SectionWriter w("STRATAT1", 3);
  w.section<std::int64_t>(std::vector<std::int64_t>{1, 2, 3});
  const std::vector<std::byte> bytes = w.take();
  SectionReader r(bytes, "rec", "STRATAT1", 3);
  const std::uint64_t count = (std::uint64_t{1} << 61) + 3;  // count * 8 wraps to 24
  CHECK_THROWS_WITH(r.section<std::int64_t>("values", count),
                    Catch::Contains("section values has 24 bytes, expected 2305843009213693955"));
}
