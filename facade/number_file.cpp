#include "number_file.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "strata/core/error.h"

namespace strata {
namespace {

std::string listed(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

std::map<std::string, double> read_numbers(const std::string& path, const char* flag,
                                           const std::vector<std::string>& names, bool positive,
                                           const std::vector<std::string>& optional) {
  std::ifstream in(path);
  STRATA_REQUIRE(in.good(), flag, " ", path, ": cannot be read");
  std::map<std::string, double> numbers;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::string key;
    double value = 0;
    if (!(fields >> key) || key[0] == '#') continue;
    const bool parsed = static_cast<bool>(fields >> value) && std::isfinite(value) &&
                        (positive ? value > 0 : value >= 0);
    const bool known = std::find(names.begin(), names.end(), key) != names.end() ||
                       std::find(optional.begin(), optional.end(), key) != optional.end();
    STRATA_REQUIRE(known && parsed, flag, " ", path, " line ", number, ": expected a name (",
                   listed(names), optional.empty() ? "" : "; or " + optional.front() + " to ",
                   optional.empty() ? "" : optional.back(), ") and a number ",
                   positive ? "> 0" : ">= 0", ", got '", line, "'");
    numbers[key] = value;
  }
  for (const auto& name : names)
    STRATA_REQUIRE(numbers.count(name) == 1, flag, " ", path, ": no ", name, " line");
  return numbers;
}

}  // namespace strata
