// For the one translation unit of a test binary that defines CATCH_CONFIG_RUNNER: counts the
// test cases that ran and those that skipped (skip.h), and runs the session to an exit
// status: Catch's, or kSkipReturnCode when every case that ran skipped.
#pragma once
#include <catch2/catch.hpp>

#include "skip.h"

namespace strata::test {

struct SkipCounts {
  int ran = 0;
  int skipped = 0;
};

inline SkipCounts& skip_counts() {
  static SkipCounts counts;
  return counts;
}

class SkipListener : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    TestEventListenerBase::testCaseStarting(info);
    case_skipped() = false;
  }
  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    ++skip_counts().ran;
    if (case_skipped() && stats.totals.assertions.total() == 0) ++skip_counts().skipped;
    TestEventListenerBase::testCaseEnded(stats);
  }
};
CATCH_REGISTER_LISTENER(SkipListener)

// Catch's status (failed cases) or, when every case that ran skipped, kSkipReturnCode.
inline int exit_status(int catch_status) {
  const SkipCounts& c = skip_counts();
  if (catch_status == 0 && c.ran > 0 && c.skipped == c.ran) return kSkipReturnCode;
  return catch_status;
}

}  // namespace strata::test
