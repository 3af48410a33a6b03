// Skipping a test case that cannot run what it tests here (no GPU answers, a dataset is
// absent): skip(why) prints the reason, and a run in which every test case that ran
// skipped, asserting nothing, exits kSkipReturnCode, which ctest reports as "Skipped"
// (SKIP_RETURN_CODE) instead of passed. A case that asserted anything counts as run.
#pragma once
#include <catch2/catch.hpp>
#include <string>

namespace strata::test {

inline constexpr int kSkipReturnCode = 77;

// Whether the running test case has called skip(); reset as each case starts.
inline bool& case_skipped() {
  static bool skipped = false;
  return skipped;
}

inline void skip(const std::string& why) {
  WARN("SKIP: " << why);
  case_skipped() = true;
}

}  // namespace strata::test
