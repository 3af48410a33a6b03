// Sizes on the command line: "8GiB", "512MB", "1.5G", "4096" (bytes).
#pragma once
#include <cstdint>
#include <string>

namespace strata::cli {

// B, KB/MB/GB/TB (powers of 1000), KiB/MiB/GiB/TiB and K/M/G/T (powers of 1024); an input
// error naming the flag for anything else.
std::int64_t parse_byte_size(const std::string& text, const char* flag);

}  // namespace strata::cli
