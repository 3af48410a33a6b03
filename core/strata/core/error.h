// Errors: every failure that reaches a user is a strata::Error with what failed and where.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace strata {

// Bad input (files, flags, sizes) exits with status 2; anything else with 1.
enum class ErrorKind { kInput, kInternal };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

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
#define STRATA_CHECK(cond, ...)                                                          \
  do {                                                                                   \
    if (!(cond)) ::strata::throw_internal_error(__FILE__, __LINE__, "check failed: " #cond \
                                                ": ", __VA_ARGS__);                      \
  } while (0)

// User-facing validation: a failure here is bad input; the message names what and where.
#define STRATA_REQUIRE(cond, ...)                          \
  do {                                                     \
    if (!(cond)) ::strata::throw_input_error(__VA_ARGS__); \
  } while (0)
