#include "strata/training/fault_injection.h"

#include <csignal>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>

#include "strata/core/error.h"

namespace strata {
namespace {

struct Fault {
  std::string kind;
  int rank = 0;
  std::int64_t epoch = 0;
};

std::optional<Fault> parse_fault(const char* text) {
  if (text == nullptr || *text == '\0') return {};
  const std::string s = text;
  const std::size_t a = s.find(':');
  const std::size_t b = a == std::string::npos ? a : s.find(':', a + 1);
  if (b == std::string::npos)
    throw_input_error("STRATA_FAULT must be KIND:RANK:EPOCH, got '", s, "'");
  Fault f;
  f.kind = s.substr(0, a);
  try {
    f.rank = std::stoi(s.substr(a + 1, b - a - 1));
    f.epoch = std::stoll(s.substr(b + 1));
  } catch (const std::exception&) {
    throw_input_error("STRATA_FAULT must be KIND:RANK:EPOCH, got '", s, "'");
  }
  STRATA_REQUIRE(f.kind == "kill" || f.kind == "throw" || f.kind == "oom",
                 "STRATA_FAULT: kind must be kill, throw or oom, got '", f.kind, "'");
  return f;
}

}  // namespace

void fault_point(int rank, std::int64_t epoch) {
  static const std::optional<Fault> fault = parse_fault(std::getenv("STRATA_FAULT"));
  if (!fault || fault->rank != rank || fault->epoch != epoch) return;
  if (fault->kind == "kill") std::raise(SIGKILL);
  if (fault->kind == "oom") throw std::bad_alloc();
  throw Error(ErrorKind::kInternal, cat("injected fault (STRATA_FAULT) in epoch ", epoch));
}

}  // namespace strata
