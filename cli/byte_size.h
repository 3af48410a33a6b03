// Sizes, rates and durations on the command line: "8GiB", "10Gbit", "50us".
#pragma once
#include <cstdint>
#include <string>

namespace strata::cli {

// B, KB/MB/GB/TB (powers of 1000), KiB/MiB/GiB/TiB and K/M/G/T (powers of 1024); an input
// error naming the flag for anything else.
std::int64_t parse_byte_size(const std::string& text, const char* flag);

// Bytes per second: "10Gbit", "1.5Gbit/s", "100Mbit", "25GB/s", "900GB/s".
double parse_rate(const std::string& text, const char* flag);
// Seconds: "50us", "0.2ms", "1e-5s".
double parse_duration(const std::string& text, const char* flag);

}  // namespace strata::cli
