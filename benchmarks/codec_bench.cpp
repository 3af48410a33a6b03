// The cost of packing rows for the wire (core/row_codec.h), on its own: encode (sender)
// plus decode (receiver) of a halo-like message, listed rows out of a larger matrix, per
// format and width. A format pays off when what it costs beyond float32's own gather and
// scatter (extra_s) is less than the link time of the bytes it saves (saved_s). One CSV
// row per case on stdout: what benchmarks/compression.sh records.
// Usage: bench_codec [rows] [gbit]   (defaults 20000 rows of 40000, 25 Gbit/s)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "strata/core/random.h"
#include "strata/core/timer.h"
#include "strata/kernels/kernels.h"

using namespace strata;

namespace {

// The fastest of `reps` runs of fn (the least disturbed on a shared machine).
template <typename Fn>
double best_seconds(int reps, Fn&& fn) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    Timer t;
    fn();
    best = std::min(best, t.seconds());
  }
  return best;
}

struct Times {
  double encode, decode;
};

Times run_case(RowCodec codec, std::int64_t width, std::int64_t rows) {
  const std::int64_t all = 2 * rows;
  Matrix x(all, width);
  Rng rng(width);
  for (std::int64_t i = 0; i < x.size(); ++i) x.data()[i] = rng.uniform() - 0.5f;
  std::vector<LocalId> list(static_cast<std::size_t>(all));
  for (std::size_t i = 0; i < list.size(); ++i) list[i] = static_cast<LocalId>(i);
  for (std::size_t i = list.size() - 1; i > 0; --i) std::swap(list[i], list[rng.below(i + 1)]);
  list.resize(static_cast<std::size_t>(rows));
  const std::int64_t wire = rows * row_codec_bytes(codec, width);
  std::vector<std::byte> packed(static_cast<std::size_t>(wire));
  Matrix y(all, width);
  const double encode = best_seconds(
      20, [&] { kernels::encode_rows(x.view(), list.data(), rows, codec, 7, packed.data()); });
  const double decode = best_seconds(
      20, [&] { kernels::decode_rows(packed.data(), codec, list.data(), rows, y.view(), false); });
  return {encode, decode};
}

void print_case(RowCodec codec, std::int64_t width, std::int64_t rows, double gbit, Times t,
                Times f32_times) {
  const std::int64_t f32 = rows * width * 4, wire = rows * row_codec_bytes(codec, width);
  const double saved = static_cast<double>(f32 - wire) * 8.0 / (gbit * 1e9);
  const double extra = t.encode + t.decode - f32_times.encode - f32_times.decode;
  std::printf("%s,%lld,%lld,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%.2f\n", row_codec_name(codec),
              static_cast<long long>(width), static_cast<long long>(rows),
              static_cast<long long>(f32), static_cast<long long>(wire), t.encode, t.decode, extra,
              saved, saved > 0 ? extra / saved : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t rows = argc > 1 ? std::atoll(argv[1]) : 20000;
  const double gbit = argc > 2 ? std::atof(argv[2]) : 25.0;
  std::printf(
      "format,width,rows,float32_bytes,wire_bytes,encode_s,decode_s,extra_s,saved_s_at_%g"
      "gbit,extra_over_saved\n",
      gbit);
  for (const std::int64_t width : {16, 64, 256}) {
    const Times f32 = run_case(RowCodec::kFloat32, width, rows);
    print_case(RowCodec::kFloat32, width, rows, gbit, f32, f32);
    for (const RowCodec codec : {RowCodec::kBf16, RowCodec::kInt8})
      print_case(codec, width, rows, gbit, run_case(codec, width, rows), f32);
  }
  return 0;
}
