// A test hook for failure handling: STRATA_FAULT="KIND:RANK:EPOCH" makes rank RANK fail in
// the middle of epoch EPOCH (after the training forward pass), as a real fault would:
//   kill   the process dies of SIGKILL
//   throw  an internal error is thrown
//   oom    std::bad_alloc is thrown
// Unset (the normal case) it does nothing. A malformed value is an input error.
#pragma once
#include <cstdint>

namespace strata {

void fault_point(int rank, std::int64_t epoch);

}  // namespace strata
