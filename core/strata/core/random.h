// Counter-based randomness: a value is a pure function of its key, so any partitioning
// or chunking of the work draws the same numbers (dropout masks, init, synthetic data).
#pragma once
#include <cstdint>

// nvcc compiles these for the device too (the CUDA kernels draw the same numbers).
#if defined(__CUDACC__)
#define STRATA_HOST_DEVICE __host__ __device__
#else
#define STRATA_HOST_DEVICE
#endif

namespace strata {

constexpr STRATA_HOST_DEVICE std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

constexpr STRATA_HOST_DEVICE std::uint64_t hash_key(std::uint64_t a, std::uint64_t b) {
  return splitmix64(a ^ splitmix64(b));
}

template <typename... Rest>
constexpr std::uint64_t hash_key(std::uint64_t a, std::uint64_t b, Rest... rest) {
  return hash_key(hash_key(a, b), static_cast<std::uint64_t>(rest)...);
}

// Uniform in [0, 1) from the top 24 bits of a hash.
constexpr float uniform01(std::uint64_t h) {
  return static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
}

// Small sequential generator for generators that need streams (seeded from a key).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return splitmix64(state_++); }
  float uniform() { return uniform01(next()); }
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t state_;
};

}  // namespace strata
