// Errors: every failure that reaches a user is a strata::Error with what failed and where.
#pragma once
#include <sstream>
#include <string>

#include "strata/error.h"  // Error and ErrorKind are public: they cross the facade as they are

namespace strata {

template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

template <typename... Parts>
[[noreturn]] void throw_input_error(const Parts&... parts) {
  throw Error(ErrorKind::kInput, cat(parts...));
}

template <typename... Parts>
[[noreturn]] void throw_internal_error(const char* file, int line, const Parts&... parts) {
  throw Error(ErrorKind::kInternal, cat(parts..., " (", file, ":", line, ")"));
}

}  // namespace strata

// Internal invariant: a failure here is a bug in Strata, reported with file:line.
#define STRATA_CHECK(cond, ...)                                                       \
  do {                                                                                \
    if (!(cond))                                                                      \
      ::strata::throw_internal_error(__FILE__, __LINE__, "check failed: " #cond ": ", \
                                     __VA_ARGS__);                                    \
  } while (0)

// User-facing validation: a failure here is bad input; the message names what and where.
#define STRATA_REQUIRE(cond, ...)                          \
  do {                                                     \
    if (!(cond)) ::strata::throw_input_error(__VA_ARGS__); \
  } while (0)
