// Writes a small seed corpus for every fuzz target with the real writers:
// fuzz_seeds DIR makes DIR/<target>/<seed> (targets as in scripts/fuzz.sh).
#include <zlib.h>

#include <cstdio>
#include <utility>
#include <vector>

#include "checkpoint_run.h"
#include "fuzz_util.h"
#include "ogb_layout.h"
#include "sections_layout.h"
#include "strata/datasets/dataset.h"
#include "strata/partition/partition_file.h"
#include "strata/partition/partitioner.h"
#include "strata/shards/shard.h"
#include "strata/store/weights_file.h"
#include "weights_models.h"

namespace strata::fuzz {
namespace {

void write_text(const fs::path& path, std::string_view text) {
  write_bytes(path, text.data(), text.size());
}

void write_record(const fs::path& path, const std::vector<std::byte>& bytes) {
  write_bytes(path, bytes.data(), bytes.size());
}

std::string read_text(const fs::path& path) {
  const std::vector<std::byte> bytes = read_file(path.string());
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string gzip(const fs::path& scratch_file, std::string_view text) {
  gzFile f = gzopen(scratch_file.c_str(), "wb");
  if (f == nullptr || gzwrite(f, text.data(), static_cast<unsigned>(text.size())) < 0 ||
      gzclose(f) != Z_OK) {
    std::fprintf(stderr, "fuzz_seeds: gzip failed\n");
    std::exit(1);
  }
  return read_text(scratch_file);
}

// A 6-vertex, 3-feature, 2-class graph.
Dataset tiny_dataset() {
  LoadOptions options;
  options.nodes = 6;
  options.avg_degree = 2;
  options.features = 3;
  options.classes = 2;
  return make_sbm(options);
}

void ogb_seeds(const fs::path& dir) {
  const std::vector<std::string> parts = {
      "4\n", "4\n", "1.0,3.0\n0.0,0.0\n0.5,0.25\n2,2\n", "0\n1\n1\n0\n", "", "0\n1\n",
      "2\n", "3\n"};
  const std::string edges = "0,1\n1,2\n2,3\n3,3\n";
  for (bool gz : {false, true}) {
    std::string input;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) input += kOgbSeparator;
      input += i != 4 ? parts[i] : gz ? gzip(dir / "edges.gz", edges) : edges;
    }
    write_text(dir / (gz ? "small_gz_edges" : "small"), input);
  }
  fs::remove(dir / "edges.gz");
}

void edge_list_seeds(const fs::path& dir) {
  const std::string text = "# a SNAP edge list\n0 1\n1\t2\n2 0\n\n7 1\n";
  write_text(dir / "snap.txt", text);
  write_text(dir / "snap.txt.gz", gzip(dir / "tmp.gz", text));
  fs::remove(dir / "tmp.gz");
}

void cache_seeds(const fs::path& dir) {
  Dataset d = tiny_dataset();
  d.features = FeatureMatrix(d.features.to_dense());
  save_cache(d, (dir / "dense.strata").string());
  d.features = FeatureMatrix(to_csr(d.features.to_dense()));
  save_cache(d, (dir / "sparse.strata").string());
}

void shard_seeds(const fs::path& dir) {
  Dataset d = tiny_dataset();
  const auto parts = partition_graph(d.adjacency, {.method = PartitionMethod::kRange, .parts = 2});
  for (bool sparse : {false, true}) {
    d.features = sparse ? FeatureMatrix(to_csr(d.features.to_dense()))
                        : FeatureMatrix(d.features.to_dense());
    const std::string kind = sparse ? "sparse" : "dense";
    for (int p = 0; p < 2; ++p)
      write_record(dir / (kind + "-part-" + std::to_string(p)),
                   serialize_shard(make_shard(d, parts, 2, p)));
  }
}

void partition_file_seeds(const fs::path& dir) {
  write_partition_file((dir / "three.part").string(), std::vector<std::int32_t>{0, 2, 1, 1, 0});
  write_text(dir / "blank_tail.part", "0\n1\n \n");
}

void weights_file_seeds(const fs::path& dir) {
  int index = 0;
  for (const ModelConfig& model : weights_models()) {
    Weights weights;
    for (const TensorShape& shape : parameter_shapes(model))
      weights.emplace_back(static_cast<std::size_t>(shape.size()), 0.25f);
    write_weights_file((dir / ("model-" + std::to_string(index++))).string(), model, weights);
  }
}

// A genuine checkpoint: its rank record (first byte 0) and its manifest (first byte 1).
void checkpoint_seeds(const fs::path& dir) {
  const fs::path saved = dir / "saved";
  run_checkpointed_job(saved.string(), kSavedEpochs, false);
  for (const char* file : {"rank-00000.state", "MANIFEST"}) {
    std::vector<std::byte> seed = {std::byte{file[0] == 'M' ? std::uint8_t{1} : std::uint8_t{0}}};
    const std::vector<std::byte> bytes = read_file((saved / kSavedFolder / file).string());
    seed.insert(seed.end(), bytes.begin(), bytes.end());
    write_record(dir / file, seed);
  }
  fs::remove_all(saved);
}

void sections_seeds(const fs::path& dir) {
  write_record(dir / "small", write_fuzz_record(2, "name", 3));
  write_record(dir / "empty", write_fuzz_record(0, "", 0));
}

}  // namespace
}  // namespace strata::fuzz

int main(int argc, char** argv) {
  using namespace strata::fuzz;
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds DIR\n");
    return 2;
  }
  const fs::path root = argv[1];
  const std::pair<const char*, void (*)(const fs::path&)> targets[] = {
      {"ogb", ogb_seeds},
      {"edge_list", edge_list_seeds},
      {"cache", cache_seeds},
      {"shard", shard_seeds},
      {"partition_file", partition_file_seeds},
      {"weights_file", weights_file_seeds},
      {"sections", sections_seeds},
      {"checkpoint", checkpoint_seeds}};
  try {
    for (const auto& [name, write_seeds] : targets) {
      fs::create_directories(root / name);
      write_seeds(root / name);
    }
  } catch (const strata::Error& e) {
    std::fprintf(stderr, "fuzz_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
