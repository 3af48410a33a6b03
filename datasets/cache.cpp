// Binary cache: "STRATA01", a version, then length-prefixed sections each followed by
// its zlib crc32, so a flipped or missing byte is caught and named.
// Version 1 always stored features as non-zeros; version 2 adds a storage-kind section
// (0 dense: one values section; 1 sparse: nnz, offsets, columns, values) and restores
// the features exactly as they were saved. Both versions are read.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "strata/core/sections.h"
#include "strata/datasets/dataset.h"

namespace strata {
namespace {

constexpr char kMagic[8] = {'S', 'T', 'R', 'A', 'T', 'A', '0', '1'};
constexpr std::uint32_t kVersion = 2;
constexpr std::uint32_t kSparseOnlyVersion = 1;
constexpr std::uint8_t kDenseKind = 0, kSparseKind = 1;

class Writer {
 public:
  explicit Writer(std::ofstream& out) : out_(out) {}
  template <typename T>
  void section(const T* data, std::size_t count) {
    const std::uint64_t bytes = count * sizeof(T);
    const std::uint32_t crc = crc32_of(data, bytes);
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
  explicit Reader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    STRATA_REQUIRE(in_.good(), path_, ": cannot open cache");
    in_.seekg(0, std::ios::end);
    size_ = static_cast<std::uint64_t>(in_.tellg());
    in_.seekg(0);
  }
  void raw(void* out, std::uint64_t bytes, const char* what) {
    STRATA_REQUIRE(bytes <= size_ - pos_, path_, ": truncated cache at byte ", pos_, " (reading ",
                   what, ")");
    in_.read(static_cast<char*>(out), static_cast<std::streamsize>(bytes));
    STRATA_REQUIRE(in_.good(), path_, ": read failed at byte ", pos_);
    pos_ += bytes;
  }
  // Reads a section of exactly `count` elements straight into out (one read, one crc).
  template <typename T>
  void section_into(T* out, std::uint64_t count, const char* what) {
    std::uint64_t bytes = 0;
    raw(&bytes, sizeof bytes, what);
    STRATA_REQUIRE(bytes == count * sizeof(T), path_, ": section ", what, " has ", bytes,
                   " bytes, expected ", count * sizeof(T));
    raw(out, bytes, what);
    std::uint32_t stored = 0;
    raw(&stored, sizeof stored, what);
    STRATA_REQUIRE(crc32_of(out, bytes) == stored, path_, ": checksum mismatch in section ", what);
  }
  template <typename T>
  std::vector<T> section(const char* what, std::uint64_t count) {
    STRATA_REQUIRE(count <= (size_ - pos_) / sizeof(T), path_, ": truncated cache at byte ", pos_,
                   " (reading ", what, ")");
    std::vector<T> values(static_cast<std::size_t>(count));
    section_into(values.data(), count, what);
    return values;
  }
  bool at_end() const { return pos_ == size_; }
  std::uint64_t left() const { return size_ - pos_; }

 private:
  std::string path_;
  std::ifstream in_;
  std::uint64_t size_ = 0;
  std::uint64_t pos_ = 0;
};

struct Sizes {
  std::int64_t nodes, features, nnz, name_length, classes;
};

void write_features(Writer& w, const FeatureMatrix& features) {
  const std::uint8_t kind = features.is_sparse() ? kSparseKind : kDenseKind;
  w.section(&kind, 1);
  if (!features.is_sparse()) {
    const Matrix& x = features.dense();
    w.section(x.data(), static_cast<std::size_t>(x.size()));
    return;
  }
  const Csr& x = features.sparse();
  const std::int64_t nnz = x.nnz();
  w.section(&nnz, 1);
  w.section(x.offsets.data(), x.offsets.size());
  w.section(x.indices.data(), x.indices.size());
  w.section(x.values.data(), x.values.size());
}

Csr read_sparse_features(Reader& r, const Sizes& s, const std::string& path) {
  const std::int64_t nnz = r.section<std::int64_t>("feature_nnz", 1)[0];
  STRATA_REQUIRE(nnz >= 0 && nnz <= s.nodes * s.features, path, ": implausible feature count ",
                 nnz);
  Csr x;
  x.rows = static_cast<LocalId>(s.nodes);
  x.cols = static_cast<LocalId>(s.features);
  x.offsets = r.section<EdgeOffset>("feature_offsets", static_cast<std::uint64_t>(s.nodes + 1));
  x.indices = r.section<LocalId>("feature_columns", static_cast<std::uint64_t>(nnz));
  x.values = r.section<float>("feature_values", static_cast<std::uint64_t>(nnz));
  validate(x, (path + ": features").c_str());
  return x;
}

FeatureMatrix read_features(Reader& r, const Sizes& s, std::uint32_t version,
                            const std::string& path) {
  if (version == kSparseOnlyVersion) return choose_storage(read_sparse_features(r, s, path));
  const std::uint8_t kind = r.section<std::uint8_t>("feature_kind", 1)[0];
  STRATA_REQUIRE(kind == kDenseKind || kind == kSparseKind, path, ": unknown feature kind ",
                 int{kind});
  if (kind == kSparseKind) return FeatureMatrix(read_sparse_features(r, s, path));
  STRATA_REQUIRE(static_cast<std::uint64_t>(s.nodes * s.features) <= r.left() / sizeof(float), path,
                 ": truncated cache (dense features of ", s.nodes, " x ", s.features, ")");
  Matrix x(s.nodes, s.features);
  r.section_into(x.data(), static_cast<std::uint64_t>(x.size()), "feature_values");
  return FeatureMatrix(std::move(x));
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
  write_features(w, d.features);
  w.section(d.labels.data(), d.labels.size());
  for (const auto* mask : {&d.train_mask, &d.val_mask, &d.test_mask})
    w.section(mask->data(), mask->size());
  STRATA_REQUIRE(out.good(), path, ": write failed");
}

Dataset load_cache_raw(const std::string& path) {
  Reader r(path);
  char magic[8];
  r.raw(magic, sizeof magic, "magic");
  STRATA_REQUIRE(std::memcmp(magic, kMagic, sizeof magic) == 0, path,
                 ": not a Strata cache (bad magic)");
  std::uint32_t version = 0;
  r.raw(&version, sizeof version, "version");
  STRATA_REQUIRE(version == kVersion || version == kSparseOnlyVersion, path, ": cache version ",
                 version, ", expected ", kSparseOnlyVersion, " or ", kVersion);
  const Sizes s = r.section<Sizes>("sizes", 1)[0];
  STRATA_REQUIRE(s.nodes >= 0 && s.nodes < (std::int64_t{1} << 31) && s.features >= 0 &&
                     s.features < (std::int64_t{1} << 31) && s.nnz >= 0 && s.name_length >= 0 &&
                     s.classes >= 0,
                 path, ": implausible sizes in cache header");
  Dataset d;
  const auto name = r.section<char>("name", static_cast<std::uint64_t>(s.name_length));
  d.name.assign(name.begin(), name.end());
  d.adjacency.rows = d.adjacency.cols = static_cast<LocalId>(s.nodes);
  d.adjacency.offsets = r.section<EdgeOffset>("offsets", static_cast<std::uint64_t>(s.nodes + 1));
  d.adjacency.indices = r.section<LocalId>("indices", static_cast<std::uint64_t>(s.nnz));
  d.features = read_features(r, s, version, path);
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
