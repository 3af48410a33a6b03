// Real datasets for the exactness tests (STRATA_DATASETS, else the build's default), or
// nothing where they are absent: the case skips (tests/support/skip.h).
#pragma once
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "skip.h"
#include "strata/datasets/dataset.h"

namespace strata::testing {

inline std::optional<Dataset> real_dataset(const std::string& name, bool binarize) {
  const char* env = std::getenv("STRATA_DATASETS");
  const std::string root = env != nullptr && *env != '\0' ? env : STRATA_DEFAULT_DATASETS;
  const std::string dir = root + "/" + name;
  if (!std::filesystem::exists(dir)) {
    test::skip(name + ": " + dir + " not found (scripts/get-datasets.sh fetches it)");
    return std::nullopt;
  }
  LoadOptions options;
  options.binarize = binarize;
  return load_dataset(dir, options);
}

}  // namespace strata::testing
