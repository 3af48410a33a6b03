// read_weights_file for a small GCN and a small GCNII (weights_models.h).
#include "fuzz_util.h"
#include "strata/store/weights_file.h"
#include "weights_models.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::fuzz;
  read_with_and_without_checksums("model.weights", data, size, [](const std::string& path) {
    for (const strata::ModelConfig& model : weights_models())
      expect_input_errors_only([&] { strata::read_weights_file(path, model); });
  });
  return 0;
}
