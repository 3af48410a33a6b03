// The main of the test binaries whose cases may skip (tests/support/skip.h): Catch2's own,
// with skipped runs reported to ctest as skipped.
#define CATCH_CONFIG_RUNNER
#include "catch_session.h"

int main(int argc, char** argv) {
  return strata::test::exit_status(Catch::Session().run(argc, argv));
}
