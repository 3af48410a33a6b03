// Helpers: temporary directories and small hand-written gzip files.
#pragma once
#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "skip.h"
#include "strata/datasets/dataset.h"

namespace strata::test {

namespace fs = std::filesystem;

inline fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("strata_datasets_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline void write_gz(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  gzFile f = gzopen(path.string().c_str(), "wb");
  REQUIRE(f != nullptr);
  if (!text.empty()) gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
}

inline void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A 4-node, 2-feature, 2-class OGB directory with a single split "s".
inline fs::path small_ogb(const std::string& name) {
  const fs::path dir = temp_dir(name);
  write_gz(dir / "raw/edge.csv.gz", "0,1\n1,2\n2,3\n3,3\n");
  write_gz(dir / "raw/node-feat.csv.gz", "1.0,3.0\n0.0,0.0\n0.5,0.25\n2,2\n");
  write_gz(dir / "raw/node-label.csv.gz", "0\n1\n1\n0\n");
  write_gz(dir / "raw/num-node-list.csv.gz", "4\n");
  write_gz(dir / "raw/num-edge-list.csv.gz", "4\n");
  write_gz(dir / "split/s/train.csv.gz", "0\n1\n");
  write_gz(dir / "split/s/valid.csv.gz", "2\n");
  write_gz(dir / "split/s/test.csv.gz", "3\n");
  return dir;
}

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

inline std::string datasets_root() {
  const char* env = std::getenv("STRATA_DATASETS");
  if (env != nullptr && *env != '\0') return env;
  return STRATA_DEFAULT_DATASETS;
}

}  // namespace strata::test
