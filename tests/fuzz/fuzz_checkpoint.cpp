// Resuming from a checkpoint folder: the first input byte picks the file the rest of the
// input replaces in a genuine checkpoint, even for the rank's state record (with a
// manifest that vouches for it, so the record's own contents are read), odd for the
// MANIFEST. Then a one-rank pipeline job resumes from it, as `--resume` would (with
// nothing left to train: the load path is what is under test, not the fsyncs of saving).
#include "checkpoint_run.h"
#include "fuzz_util.h"

namespace {

using namespace strata::fuzz;

struct Genuine {
  std::vector<std::byte> record, manifest;
  std::string key_text;
};

const Genuine& genuine() {
  static const Genuine saved = [] {
    const fs::path dir = scratch() / "genuine";
    run_checkpointed_job(dir.string(), kSavedEpochs, false);
    Genuine g;
    g.record = strata::read_file((dir / kSavedFolder / "rank-00000.state").string());
    g.manifest = strata::read_file((dir / kSavedFolder / "MANIFEST").string());
    g.key_text = manifest_key_text(g.manifest);
    return g;
  }();
  return saved;
}

void resume_from(const std::vector<std::byte>& record, const std::vector<std::byte>& manifest) {
  const fs::path dir = scratch() / "resume";
  fs::remove_all(dir);
  write_bytes(dir / kSavedFolder / "rank-00000.state", record.data(), record.size());
  write_bytes(dir / kSavedFolder / "MANIFEST", manifest.data(), manifest.size());
  expect_input_errors_only([&] { run_checkpointed_job(dir.string(), kSavedEpochs, true); });
}

std::vector<std::byte> as_bytes(const std::vector<std::uint8_t>& v) {
  const auto* begin = reinterpret_cast<const std::byte*>(v.data());
  return {begin, begin + v.size()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Genuine& g = genuine();
  const std::vector<std::uint8_t> as_given(data + 1, data + size);
  const std::vector<std::uint8_t> fixed = with_fixed_checksums(data + 1, size - 1);
  for (const auto* input : {&as_given, &fixed}) {
    const std::vector<std::byte> bytes = as_bytes(*input);
    if (data[0] % 2 == 0)
      resume_from(bytes, make_manifest(g.key_text, bytes));
    else
      resume_from(g.record, bytes);
    if (fixed == as_given) break;
  }
  return 0;
}
