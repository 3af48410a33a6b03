// STRATA_NCCL_CHECK: the one check macro for NCCL calls. ncclSuccess and ncclInProgress
// (a non-blocking communicator's "started") return; anything else throws strata::Error
// naming the call, NCCL's error string and last message, and file:line.
#pragma once
#include <nccl.h>

namespace strata {

void nccl_check(ncclResult_t result, const char* operation, const char* file, int line);

}  // namespace strata

#define STRATA_NCCL_CHECK(call) ::strata::nccl_check((call), #call, __FILE__, __LINE__)
