#include "byte_size.h"

#include <cmath>
#include <cstdlib>
#include <utility>

#include "commands.h"

namespace strata::cli {

std::int64_t parse_byte_size(const std::string& text, const char* flag) {
  const std::string bad =
      std::string(flag) + " must be a size such as 8GiB, 512MB or 4096, got '" + text + "'";
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  require(end != text.c_str() && std::isfinite(number) && number >= 0, bad);
  const std::string unit(end);
  const std::pair<const char*, double> units[] = {{"", 1},
                                                  {"B", 1},
                                                  {"KB", 1e3},
                                                  {"MB", 1e6},
                                                  {"GB", 1e9},
                                                  {"TB", 1e12},
                                                  {"K", 1024.0},
                                                  {"KiB", 1024.0},
                                                  {"M", 1048576.0},
                                                  {"MiB", 1048576.0},
                                                  {"G", 1073741824.0},
                                                  {"GiB", 1073741824.0},
                                                  {"T", 1099511627776.0},
                                                  {"TiB", 1099511627776.0}};
  for (const auto& [name, scale] : units) {
    if (unit != name) continue;
    const double bytes = number * scale;
    require(bytes < 9e18, bad);
    return static_cast<std::int64_t>(bytes);
  }
  require(false, bad);
  return 0;
}

namespace {

// A positive number followed by one of `units`, times its scale.
double scaled(const std::string& text, std::initializer_list<std::pair<const char*, double>> units,
              const std::string& bad) {
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  require(end != text.c_str() && std::isfinite(number) && number >= 0, bad);
  for (const auto& [name, scale] : units)
    if (std::string(end) == name) return number * scale;
  require(false, bad);
  return 0;
}

}  // namespace

double parse_rate(const std::string& text, const char* flag) {
  const double rate = scaled(text,
                             {{"Gbit", 1e9 / 8},
                              {"Gbit/s", 1e9 / 8},
                              {"Mbit", 1e6 / 8},
                              {"Mbit/s", 1e6 / 8},
                              {"GB/s", 1e9},
                              {"MB/s", 1e6}},
                             std::string(flag) + " must be a rate such as 10Gbit, 100Mbit or " +
                                 "25GB/s, got '" + text + "'");
  require(rate > 0, std::string(flag) + " must be positive, got '" + text + "'");
  return rate;
}

double parse_duration(const std::string& text, const char* flag) {
  return scaled(
      text, {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}},
      std::string(flag) + " must be a duration such as 50us or 0.2ms, got '" + text + "'");
}

}  // namespace strata::cli
