// Binary cache: "STRATA01", a version, then length-prefixed sections each followed by
// its zlib crc32, so a flipped or missing byte is caught and named.
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <algorithm>

#include "strata/datasets/dataset.h"

namespace strata {
namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', '0', '1'};
constexpr std::uint32_t kVersion = 1;

// crc32 over a buffer of any size (zlib takes at most uInt bytes a call).
std::uint32_t checksum(const void* data, std::uint64_t bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto* p = static_cast<const Bytef*>(data);
  while (bytes > 0) {
    const auto chunk = static_cast<uInt>(std::min<std::uint64_t>(bytes, 1u << 30));
    crc = crc32(crc, p, chunk);
    p += chunk;
    bytes -= chunk;
  }
  return static_cast<std::uint32_t>(crc);
}

class Writer {
 public:
  explicit Writer(std::ofstream& out) : out_(out) {}
  template <typename T>
  void section(const T* data, std::size_t count) {
    const std::uint64_t bytes = count * sizeof(T);
    const std::uint32_t crc = checksum(data, bytes);
    raw(&bytes, sizeof bytes);
    raw(data, bytes);
    raw(&crc, sizeof crc);
  }
  void raw(const void* data, std::size_t bytes) {
    out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  }

 private:
  std::ofstream& out_;
};

class Reader {
 public:
  explicit Reader(const std::string& path)
      : path_(path), in_(path, std::ios::binary) {
    STRATA_REQUIRE(in_.good(), path_, ": cannot open cache");
    in_.seekg(0, std::ios::end);
    size_ = static_cast<std::uint64_t>(in_.tellg());
    in_.seekg(0);
  }
  void raw(void* out, std::uint64_t bytes, const char* what) {
    STRATA_REQUIRE(bytes <= size_ - pos_, path_, ": truncated cache at byte ", pos_,
                   " (reading ", what, ")");
    in_.read(static_cast<char*>(out), static_cast<std::streamsize>(bytes));
    STRATA_REQUIRE(in_.good(), path_, ": read failed at byte ", pos_);
    pos_ += bytes;
  }
  template <typename T>
  std::vector<T> section(const char* what, std::uint64_t expected_count) {
    std::uint64_t bytes = 0;
    raw(&bytes, sizeof bytes, what);
    STRATA_REQUIRE(bytes == expected_count * sizeof(T), path_, ": section ", what, " has ",
                   bytes, " bytes, expected ", expected_count * sizeof(T));
    std::vector<T> values(static_cast<std::size_t>(expected_count));
    raw(values.data(), bytes, what);
    std::uint32_t stored = 0;
    raw(&stored, sizeof stored, what);
    STRATA_REQUIRE(checksum(values.data(), bytes) == stored, path_,
                   ": checksum mismatch in section ", what);
    return values;
  }
  bool at_end() const { return pos_ == size_; }

 private:
  std::string path_;
  std::ifstream in_;
  std::uint64_t size_ = 0;
  std::uint64_t pos_ = 0;
};

struct Sizes {
  std::int64_t nodes, features, nnz, name_length, classes;
};

// Features are stored as their non-zeros (exact raw values): bag-of-words features are
// mostly zeros, and a dense copy makes the cache slower to read than the gzip source.
void write_sparse_features(Writer& w, const Matrix& features) {
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int32_t> columns;
  std::vector<float> values;
  for (std::int64_t i = 0; i < features.rows(); ++i) {
    const float* row = features.row(i);
    for (std::int64_t j = 0; j < features.cols(); ++j) {
      if (row[j] == 0.0f) continue;
      columns.push_back(static_cast<std::int32_t>(j));
      values.push_back(row[j]);
    }
    offsets.push_back(static_cast<std::int64_t>(columns.size()));
  }
  const std::int64_t nnz = offsets.back();
  w.section(&nnz, 1);
  w.section(offsets.data(), offsets.size());
  w.section(columns.data(), columns.size());
  w.section(values.data(), values.size());
}

Matrix read_sparse_features(Reader& r, std::int64_t rows, std::int64_t cols,
                            const std::string& path) {
  const std::int64_t nnz = r.section<std::int64_t>("feature_nnz", 1)[0];
  STRATA_REQUIRE(nnz >= 0 && nnz <= rows * cols, path, ": implausible feature count ", nnz);
  const auto offsets = r.section<std::int64_t>("feature_offsets", static_cast<std::uint64_t>(rows + 1));
  const auto columns = r.section<std::int32_t>("feature_columns", static_cast<std::uint64_t>(nnz));
  const auto values = r.section<float>("feature_values", static_cast<std::uint64_t>(nnz));
  STRATA_REQUIRE(offsets[0] == 0, path, ": bad feature offsets at row 0");
  Matrix features(rows, cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    STRATA_REQUIRE(offsets[i] <= offsets[i + 1] && offsets[i + 1] <= nnz, path,
                   ": bad feature offsets at row ", i);
    for (std::int64_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      STRATA_REQUIRE(columns[k] >= 0 && columns[k] < cols, path, ": bad feature column at row ", i);
      features.at(i, columns[k]) = values[k];
    }
  }
  return features;
}

}  // namespace

void save_cache(const Dataset& d, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  STRATA_REQUIRE(out.good(), path, ": cannot open for writing");
  Writer w(out);
  w.raw(kMagic, sizeof kMagic);
  w.raw(&kVersion, sizeof kVersion);
  const Sizes sizes{d.adjacency.rows, d.features.cols(), d.adjacency.nnz(),
                    static_cast<std::int64_t>(d.name.size()), d.num_classes};
  w.section(&sizes, 1);
  w.section(d.name.data(), d.name.size());
  w.section(d.adjacency.offsets.data(), d.adjacency.offsets.size());
  w.section(d.adjacency.indices.data(), d.adjacency.indices.size());
  write_sparse_features(w, d.features);
  w.section(d.labels.data(), d.labels.size());
  for (const auto* mask : {&d.train_mask, &d.val_mask, &d.test_mask})
    w.section(mask->data(), mask->size());
  STRATA_REQUIRE(out.good(), path, ": write failed");
}

Dataset load_cache_raw(const std::string& path) {
  Reader r(path);
  char magic[8];
  r.raw(magic, sizeof magic, "magic");
  STRATA_REQUIRE(std::memcmp(magic, kMagic, sizeof magic) == 0, path, ": not a Strata cache (bad magic)");
  std::uint32_t version = 0;
  r.raw(&version, sizeof version, "version");
  STRATA_REQUIRE(version == kVersion, path, ": cache version ", version, ", expected ", kVersion);
  const Sizes s = r.section<Sizes>("sizes", 1)[0];
  STRATA_REQUIRE(s.nodes >= 0 && s.nodes < (std::int64_t{1} << 31) && s.features >= 0 &&
                     s.nnz >= 0 && s.name_length >= 0 && s.classes >= 0,
                 path, ": implausible sizes in cache header");
  Dataset d;
  const auto name = r.section<char>("name", static_cast<std::uint64_t>(s.name_length));
  d.name.assign(name.begin(), name.end());
  d.adjacency.rows = d.adjacency.cols = static_cast<LocalId>(s.nodes);
  d.adjacency.offsets = r.section<EdgeOffset>("offsets", static_cast<std::uint64_t>(s.nodes + 1));
  d.adjacency.indices = r.section<LocalId>("indices", static_cast<std::uint64_t>(s.nnz));
  d.features = read_sparse_features(r, s.nodes, s.features, path);
  d.labels = r.section<std::int32_t>("labels", static_cast<std::uint64_t>(s.nodes));
  d.num_classes = static_cast<std::int32_t>(s.classes);
  d.train_mask = r.section<std::uint8_t>("train_mask", static_cast<std::uint64_t>(s.nodes));
  d.val_mask = r.section<std::uint8_t>("val_mask", static_cast<std::uint64_t>(s.nodes));
  d.test_mask = r.section<std::uint8_t>("test_mask", static_cast<std::uint64_t>(s.nodes));
  STRATA_REQUIRE(r.at_end(), path, ": trailing bytes after the last section");
  validate(d.adjacency, path.c_str());
  for (std::int32_t label : d.labels)
    STRATA_REQUIRE(label >= 0 && label < d.num_classes, path, ": label ", label, " out of range");
  return d;
}

}  // namespace strata
