// Files of named numbers ("sparse_s 1.5e-10" lines) that `strata plan` reads and writes:
// kernel rates and network facts.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace strata {

// Every NAME of `names` once per "NAME NUMBER" line ('#' lines and blank lines skipped),
// and those of `optional` that are there, each NUMBER finite and >= 0 (> 0 where
// `positive`). An input error naming `flag`, the file and the line for anything else, and
// for a name of `names` missing.
std::map<std::string, double> read_numbers(const std::string& path, const char* flag,
                                           const std::vector<std::string>& names, bool positive,
                                           const std::vector<std::string>& optional = {});

}  // namespace strata
