// Real datasets for the exactness tests, or nothing (with a message) where they are absent.
#pragma once
#include <catch2/catch.hpp>
#include <filesystem>
#include <optional>
#include <string>

#include "strata/datasets/dataset.h"

namespace strata::testing {

inline std::optional<Dataset> real_dataset(const std::string& name, bool binarize) {
  const std::string dir = std::string(STRATA_DEFAULT_DATASETS) + "/" + name;
  if (!std::filesystem::exists(dir)) {
    WARN("skipping " << name << ": " << dir << " not found");
    return std::nullopt;
  }
  LoadOptions options;
  options.binarize = binarize;
  return load_dataset(dir, options);
}

}  // namespace strata::testing
