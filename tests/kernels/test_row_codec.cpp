// The row codecs (core/row_codec.h) against naive references at awkward sizes: bf16 rounds
// to nearest even like a search over the two neighbours, int8 covers each row's range,
// lands on a neighbouring level, is unbiased over keys, and is deterministic per key.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "strata/kernels/kernels.h"
#include "test_util.h"

using namespace strata;

namespace {

float bf16_value(std::uint16_t h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

// The nearer of the two bfloat16 values around x, the even one on a tie (in double); past
// the largest finite one, the next would be 2^128, and rounding there overflows to inf.
std::uint16_t naive_bf16(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  const auto below = static_cast<std::uint16_t>(u >> 16);  // toward zero
  if (std::isinf(x)) return below;
  const auto above = static_cast<std::uint16_t>(below + 1);
  const double above_value =
      (below & 0x7FFF) == 0x7F7F ? std::copysign(std::ldexp(1.0, 128), x) : bf16_value(above);
  const double d_below = std::abs(static_cast<double>(x) - bf16_value(below));
  const double d_above = std::abs(static_cast<double>(x) - above_value);
  if (d_below != d_above) return d_below < d_above ? below : above;
  return (below & 1) == 0 ? below : above;
}

std::vector<std::byte> encode(ConstMatrixView rows, const std::vector<LocalId>* list,
                              RowCodec codec, std::uint64_t key) {
  const std::int64_t n = list ? static_cast<std::int64_t>(list->size()) : rows.rows;
  std::vector<std::byte> packed(static_cast<std::size_t>(n * row_codec_bytes(codec, rows.cols)));
  kernels::encode_rows(rows, list ? list->data() : nullptr, n, codec, key, packed.data());
  return packed;
}

Matrix filled(std::int64_t rows, std::int64_t cols, const std::vector<float>& values) {
  Matrix m(rows, cols);
  m.storage() = values;
  return m;
}

Matrix decoded(const std::vector<std::byte>& packed, RowCodec codec, std::int64_t rows,
               std::int64_t cols) {
  Matrix out(rows, cols);
  kernels::decode_rows(packed.data(), codec, nullptr, rows, out.view(), false);
  return out;
}

}  // namespace

TEST_CASE("row formats: bytes per row, names") {
  CHECK(row_codec_bytes(RowCodec::kFloat32, 5) == 20);
  CHECK(row_codec_bytes(RowCodec::kBf16, 5) == 10);
  CHECK(row_codec_bytes(RowCodec::kInt8, 5) == 12);  // 4 header bytes, 5 padded to 8
  CHECK(row_codec_bytes(RowCodec::kInt8, 64) == 68);
  CHECK(row_codec_bytes(RowCodec::kInt8, 0) == 4);
  for (RowCodec c : {RowCodec::kFloat32, RowCodec::kBf16, RowCodec::kInt8})
    CHECK(parse_row_codec(row_codec_name(c)) == c);
  CHECK(!parse_row_codec("int4").has_value());
}

TEST_CASE("float32 rows round-trip bit for bit, listed or not, set or added") {
  std::vector<float> storage;
  const MatrixView x = test::random_view(storage, 9, 7, 3, 1);
  const std::vector<LocalId> list{8, 0, 4};
  const auto packed = encode(x, &list, RowCodec::kFloat32, 0);
  Matrix y(9, 7);
  kernels::decode_rows(packed.data(), RowCodec::kFloat32, list.data(), 3, y.view(), false);
  kernels::decode_rows(packed.data(), RowCodec::kFloat32, list.data(), 3, y.view(), true);
  for (LocalId r : list)
    for (std::int64_t c = 0; c < 7; ++c) CHECK(y.at(r, c) == 2.0f * x.row(r)[c]);
  CHECK(y.at(1, 0) == 0.0f);
}

TEST_CASE("bf16 rounds to nearest even, keeps NaN, infinities and signed zeros") {
  std::vector<float> values{0.0f,
                            -0.0f,
                            1.0f,
                            -1.5f,
                            3.14159f,
                            1e-40f,
                            -3e38f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  for (std::uint32_t u : {0x3F808000u, 0x3F818000u, 0x3F80C000u, 0xBF808000u, 0x7F7FFFFFu}) {
    float x;  // exact ties (even below, odd below) and near-ties
    std::memcpy(&x, &u, 4);
    values.push_back(x);
  }
  Rng rng(4);
  for (int i = 0; i < 2000; ++i)
    values.push_back((rng.uniform() - 0.5f) * std::ldexp(1.0f, i % 60 - 30));
  const Matrix x = filled(1, static_cast<std::int64_t>(values.size()), values);
  const auto packed = encode(x.view(), nullptr, RowCodec::kBf16, 0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint16_t h;
    std::memcpy(&h, packed.data() + 2 * i, 2);
    INFO(values[i]);
    CHECK(h == naive_bf16(values[i]));
  }
  const Matrix nan = filled(1, 1, {std::numeric_limits<float>::quiet_NaN()});
  CHECK(std::isnan(
      decoded(encode(nan.view(), nullptr, RowCodec::kBf16, 0), RowCodec::kBf16, 1, 1).at(0, 0)));
}

TEST_CASE("int8 rows: within one step of the value, on a neighbouring level, at awkward sizes") {
  for (std::int64_t cols : {1, 2, 3, 5, 31, 33, 64, 65, 130})
    for (std::int64_t pad : {0, 3}) {
      INFO(cols << " columns, stride pad " << pad);
      std::vector<float> storage;
      const MatrixView x =
          test::random_view(storage, 17, cols, pad, static_cast<std::uint64_t>(cols));
      for (std::int64_t c = 0; c < cols; ++c) x.row(3)[c] = 0.25f;  // one value: exact
      x.row(5)[0] = 1000.0f;                                        // a wide range
      const auto packed = encode(x, nullptr, RowCodec::kInt8, 7);
      CHECK(packed.size() == static_cast<std::size_t>(17 * row_codec_bytes(RowCodec::kInt8, cols)));
      const Matrix y = decoded(packed, RowCodec::kInt8, 17, cols);
      for (std::int64_t r = 0; r < 17; ++r) {
        const float* row = x.row(r);
        const float lo = *std::min_element(row, row + cols),
                    hi = *std::max_element(row, row + cols);
        // low is the row's lowest value rounded down to bfloat16 (8 bits of mantissa).
        const double step = (static_cast<double>(hi) - lo + std::abs(lo) / 128.0) / 255.0;
        for (std::int64_t c = 0; c < cols; ++c)
          CHECK(std::abs(static_cast<double>(y.at(r, c)) - row[c]) <=
                1.02 * step + 1e-6 * std::abs(row[c]));
      }
      for (std::int64_t c = 0; c < cols; ++c) CHECK(y.at(3, c) == 0.25f);
    }
}

TEST_CASE("int8 rounding is unbiased over keys, and each key gives the same bytes every time") {
  std::vector<float> storage;
  const MatrixView x = test::random_view(storage, 3, 40, 0, 9);
  const std::vector<LocalId> list{2, 0};
  CHECK(encode(x, &list, RowCodec::kInt8, 11) == encode(x, &list, RowCodec::kInt8, 11));
  CHECK(encode(x, &list, RowCodec::kInt8, 11) != encode(x, &list, RowCodec::kInt8, 12));
  // A row draws from its own index: listed alone or among others, the same bytes.
  const std::vector<LocalId> alone{0};
  const auto both = encode(x, &list, RowCodec::kInt8, 11);
  const auto one = encode(x, &alone, RowCodec::kInt8, 11);
  CHECK(std::equal(one.begin(), one.end(), both.begin() + static_cast<std::ptrdiff_t>(one.size())));
  const int keys = 4000;
  std::vector<double> mean(40, 0.0);
  for (int k = 0; k < keys; ++k) {
    const Matrix y = decoded(encode(x, &alone, RowCodec::kInt8, static_cast<std::uint64_t>(k)),
                             RowCodec::kInt8, 1, 40);
    for (std::int64_t c = 0; c < 40; ++c) mean[c] += y.at(0, c) / keys;
  }
  const float* row = x.row(0);
  const double step = (*std::max_element(row, row + 40) - *std::min_element(row, row + 40)) / 255.0;
  for (std::int64_t c = 0; c < 40; ++c)  // a rounding error's deviation is at most step / 2
    CHECK(std::abs(mean[c] - row[c]) < 4 * 0.5 * step / std::sqrt(keys));
}

TEST_CASE("int8: a row with NaN or inf decodes to NaN, its neighbours are untouched, adds add") {
  Matrix x(3, 6, 0.5f);
  x.at(1, 4) = std::numeric_limits<float>::quiet_NaN();
  x.at(2, 0) = std::numeric_limits<float>::infinity();
  const auto packed = encode(x.view(), nullptr, RowCodec::kInt8, 1);
  Matrix y(3, 6, 1.0f);
  kernels::decode_rows(packed.data(), RowCodec::kInt8, nullptr, 3, y.view(), true);
  for (std::int64_t c = 0; c < 6; ++c) {
    CHECK(y.at(0, c) == 1.5f);
    CHECK(std::isnan(y.at(1, c)));
    CHECK(std::isnan(y.at(2, c)));
  }
}
