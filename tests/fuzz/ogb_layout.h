// How the OGB fuzz target lays one input out as a dataset directory: the input is the
// files' contents in this order, separated by kSeparator (shared with the seed writer).
#pragma once
#include <array>
#include <string_view>

namespace strata::fuzz {

inline constexpr std::string_view kOgbSeparator = "\n--8<--\n";
inline constexpr std::array<std::string_view, 8> kOgbFiles = {
    "raw/num-node-list.csv.gz", "raw/num-edge-list.csv.gz", "raw/node-feat.csv.gz",
    "raw/node-label.csv.gz",    "raw/edge.csv.gz",          "split/s/train.csv.gz",
    "split/s/valid.csv.gz",     "split/s/test.csv.gz"};

}  // namespace strata::fuzz
