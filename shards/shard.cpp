#include "strata/shards/shard.h"

#include <filesystem>

#include "strata/core/sections.h"
#include "strata/shards/shard_validation.h"

namespace strata {
namespace {

constexpr const char* kMagic = "STRATASH";
constexpr std::uint32_t kVersion = 1;

void write_lists(SectionWriter& w, const std::vector<std::vector<LocalId>>& lists) {
  for (const auto& list : lists) w.section<LocalId>(list);
}

std::vector<std::vector<LocalId>> read_lists(SectionReader& r, int count, const char* what,
                                             std::uint64_t max_length) {
  std::vector<std::vector<LocalId>> lists;
  for (int q = 0; q < count; ++q) lists.push_back(r.section_up_to<LocalId>(what, max_length));
  return lists;
}

void write_features(SectionWriter& w, const FeatureMatrix& f) {
  w.value<std::int64_t>(f.is_sparse() ? 1 : 0);
  w.value<std::int64_t>(f.cols());
  if (!f.is_sparse()) {
    const Matrix& m = f.dense();
    w.section<float>({m.data(), static_cast<std::size_t>(m.rows() * m.cols())});
    return;
  }
  const Csr& s = f.sparse();
  w.section<EdgeOffset>(s.offsets);
  w.section<LocalId>(s.indices);
  w.section<float>(s.values);
}

FeatureMatrix read_features(SectionReader& r, LocalId rows) {
  const auto sparse = r.value<std::int64_t>("feature_kind");
  const auto cols = r.value<std::int64_t>("feature_cols");
  STRATA_REQUIRE((sparse == 0 || sparse == 1) && cols >= 0 && cols < (std::int64_t{1} << 31),
                 r.source(), ": bad feature header (kind ", sparse, ", ", cols, " columns)");
  if (sparse == 0) {
    // The section first: its size is checked against the record before the matrix exists.
    const auto values = r.section<float>("features", static_cast<std::uint64_t>(rows * cols));
    Matrix m(rows, cols);
    std::copy(values.begin(), values.end(), m.data());
    return FeatureMatrix(std::move(m));
  }
  Csr s;
  s.rows = rows;
  s.cols = static_cast<LocalId>(cols);
  s.offsets = r.section<EdgeOffset>("feature_offsets", static_cast<std::uint64_t>(rows) + 1);
  const auto nnz = static_cast<std::uint64_t>(s.offsets.back() < 0 ? 0 : s.offsets.back());
  s.indices = r.section<LocalId>("feature_columns", nnz);
  s.values = r.section<float>("feature_values", nnz);
  validate(s, r.source().c_str());
  return FeatureMatrix(std::move(s));
}

struct Header {
  std::int64_t part, parts, global_nodes, owned, halo, classes, adjacency_nnz, name_length;
};

}  // namespace

Shard make_shard(const Dataset& data, std::span<const std::int32_t> parts, int num_parts,
                 int part) {
  return make_shard(data, build_local_graph(data.adjacency, parts, part), num_parts);
}

Shard make_shard(const Dataset& data, LocalGraph graph, int num_parts) {
  Shard s{data.name, num_parts, data.adjacency.rows, data.num_classes, std::move(graph), {}, {}, {},
          {},        {}};
  const std::span<const GlobalId> owned(s.graph.local_to_global.data(),
                                        static_cast<std::size_t>(s.graph.owned));
  s.features = data.features.select_rows(owned);
  s.labels = select_values(data.labels, owned);
  s.train_mask = select_values(data.train_mask, owned);
  s.val_mask = select_values(data.val_mask, owned);
  s.test_mask = select_values(data.test_mask, owned);
  return s;
}

std::vector<std::byte> serialize_shard(const Shard& s) {
  const LocalGraph& g = s.graph;
  SectionWriter w(kMagic, kVersion);
  w.value(Header{g.part, s.parts, s.global_nodes, g.owned, g.halo, s.num_classes, g.adjacency.nnz(),
                 static_cast<std::int64_t>(s.name.size())});
  w.section<char>(s.name);
  w.section<GlobalId>(g.local_to_global);
  w.section<EdgeOffset>(g.adjacency.offsets);
  w.section<LocalId>(g.adjacency.indices);
  w.section<float>(g.degree_plus_one);
  write_lists(w, g.plan.send);
  write_lists(w, g.plan.recv);
  write_features(w, s.features);
  w.section<std::int32_t>(s.labels);
  for (const auto* mask : {&s.train_mask, &s.val_mask, &s.test_mask})
    w.section<std::uint8_t>(*mask);
  return w.take();
}

Shard deserialize_shard(std::span<const std::byte> bytes, const std::string& source) {
  SectionReader r(bytes, source, kMagic, kVersion);
  const Header h = r.value<Header>("header");
  check_shard_header(h.part, h.parts, h.global_nodes, h.owned, h.halo, h.classes, source);
  Shard s;
  s.parts = static_cast<int>(h.parts);
  s.global_nodes = h.global_nodes;
  s.num_classes = static_cast<std::int32_t>(h.classes);
  const auto name = r.section_up_to<char>("name", 4096);
  s.name.assign(name.begin(), name.end());
  LocalGraph& g = s.graph;
  g.part = static_cast<int>(h.part);
  g.owned = static_cast<LocalId>(h.owned);
  g.halo = static_cast<LocalId>(h.halo);
  const auto local = static_cast<std::uint64_t>(h.owned + h.halo);
  g.local_to_global = r.section<GlobalId>("local_to_global", local);
  g.adjacency.rows = g.owned;
  g.adjacency.cols = static_cast<LocalId>(local);
  g.adjacency.offsets = r.section<EdgeOffset>("offsets", static_cast<std::uint64_t>(h.owned) + 1);
  g.adjacency.indices = r.section<LocalId>("indices", static_cast<std::uint64_t>(h.adjacency_nnz));
  g.degree_plus_one = r.section<float>("degree_plus_one", local);
  g.plan.send = read_lists(r, s.parts, "send_list", static_cast<std::uint64_t>(h.owned));
  g.plan.recv = read_lists(r, s.parts, "recv_list", static_cast<std::uint64_t>(h.halo));
  s.features = read_features(r, g.owned);
  s.labels = r.section<std::int32_t>("labels", static_cast<std::uint64_t>(h.owned));
  s.train_mask = r.section<std::uint8_t>("train_mask", static_cast<std::uint64_t>(h.owned));
  s.val_mask = r.section<std::uint8_t>("val_mask", static_cast<std::uint64_t>(h.owned));
  s.test_mask = r.section<std::uint8_t>("test_mask", static_cast<std::uint64_t>(h.owned));
  r.expect_end();
  check_shard_contents(s, source);
  return s;
}

std::string shard_path(const std::string& dir, int part, int num_parts) {
  return (std::filesystem::path(dir) / cat("part-", part, "-of-", num_parts, ".shard")).string();
}

void write_shards(const Dataset& data, std::span<const std::int32_t> parts, int num_parts,
                  const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  STRATA_REQUIRE(!ec, dir, ": cannot create shard directory: ", ec.message());
  auto graphs = build_local_graphs(data.adjacency, parts, num_parts);
  for (int p = 0; p < num_parts; ++p)
    write_file_atomically(shard_path(dir, p, num_parts),
                          serialize_shard(make_shard(data, std::move(graphs[p]), num_parts)));
}

Shard read_shard(const std::string& dir, int part, int num_parts) {
  const std::string path = shard_path(dir, part, num_parts);
  STRATA_REQUIRE(std::filesystem::exists(path), path, ": no shard for rank ", part, " of ",
                 num_parts, " (was the dataset partitioned into ", num_parts, " parts?)");
  Shard s = deserialize_shard(read_file(path), path);
  STRATA_REQUIRE(s.graph.part == part && s.parts == num_parts, path, ": holds part ", s.graph.part,
                 " of ", s.parts, ", expected part ", part, " of ", num_parts);
  return s;
}

}  // namespace strata
