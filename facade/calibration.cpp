#include "calibration.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "best_seconds.h"
#include "number_file.h"
#include "strata/core/error.h"
#include "strata/kernels/backend.h"
#include "strata/kernels/kernels.h"
#include "wire_probe.h"

namespace strata {
namespace {

struct RateKey {
  const char* name;
  double KernelRateSet::*slot;
};
constexpr RateKey kRateKeys[] = {{"sparse_s", &KernelRateSet::sparse_s},
                                 {"features_s", &KernelRateSet::features_s},
                                 {"features_grad_s", &KernelRateSet::features_grad_s},
                                 {"dense_s", &KernelRateSet::dense_s},
                                 {"weight_grad_s", &KernelRateSet::weight_grad_s},
                                 {"stream_s", &KernelRateSet::stream_s},
                                 {"dropout_s", &KernelRateSet::dropout_s},
                                 {"pack_float32_s", &KernelRateSet::pack_float32_s},
                                 {"pack_bf16_s", &KernelRateSet::pack_bf16_s},
                                 {"pack_int8_s", &KernelRateSet::pack_int8_s},
                                 {"wire_byte_s", &KernelRateSet::wire_byte_s}};

Matrix filled(std::int64_t rows, std::int64_t cols) {
  Matrix m(rows, cols);
  for (std::int64_t i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(i % 7) * 0.25f;
  return m;
}

// Sparse features' product and its weight gradient Xᵀ D (summed in double), per stored
// value x column; dense features take the GEMM rates.
void measure_features(const Dataset& data, int width, KernelRateSet& r) {
  if (!data.features.is_sparse()) {
    r.features_s = r.dense_s, r.features_grad_s = r.weight_grad_s;
    return;
  }
  const Csr& x = data.features.sparse();
  const auto backend = kernels::make_cpu_backend();
  const auto product = backend->sparse_features(x.view());
  const Matrix w = filled(x.cols, width);
  Matrix y(x.rows, width);
  const double units = static_cast<double>(std::max<EdgeOffset>(x.nnz(), 1)) * width;
  r.features_s = best_seconds([&] { product->multiply(w.view(), y.view()); }) / units;
  std::vector<double> sums(static_cast<std::size_t>(x.cols) * width);
  const kernels::GradientSums grad{sums.data(), x.cols, width};
  r.features_grad_s = best_seconds([&] { product->accumulate_transposed(y.view(), grad); }) / units;
}

// Encoding and decoding a quarter of the rows, listed, in each wire format.
void measure_packing(const Matrix& x, KernelRateSet& r) {
  std::vector<LocalId> list;
  for (LocalId i = 0; i < x.rows(); i += 4) list.push_back(i);
  const auto n = static_cast<std::int64_t>(list.size());
  Matrix y(x.rows(), x.cols());
  double* slots[] = {&r.pack_float32_s, &r.pack_bf16_s, &r.pack_int8_s};
  for (const RowCodec codec : {RowCodec::kFloat32, RowCodec::kBf16, RowCodec::kInt8}) {
    std::vector<std::byte> packed(static_cast<std::size_t>(n * row_codec_bytes(codec, x.cols())));
    *slots[static_cast<int>(codec)] =
        best_seconds([&] {
          kernels::encode_rows(x.view(), list.data(), n, codec, 7, packed.data());
          kernels::decode_rows(packed.data(), codec, list.data(), n, y.view(), false);
        }) /
        (static_cast<double>(n) * static_cast<double>(x.cols()));
  }
}

}  // namespace

KernelRateSet measure_cpu_rates(const Dataset& data, int width) {
  const Csr& a = data.adjacency;
  const std::int64_t n = a.rows;
  const Matrix x = filled(n, width), w = filled(width, width);
  Matrix y(n, width);
  KernelRateSet r;
  r.sparse_s = best_seconds([&] { kernels::spmm(a.view(), x.view(), y.view()); }) /
               (static_cast<double>(std::max<EdgeOffset>(a.nnz(), 1)) * width);
  r.dense_s =
      best_seconds([&] { kernels::gemm(false, false, 1.0f, x.view(), w.view(), 0.0f, y.view()); }) /
      (static_cast<double>(n) * width * width);
  std::vector<double> sums(static_cast<std::size_t>(width) * width);
  r.weight_grad_s = best_seconds([&] { kernels::gemm_tn_accumulate(x.view(), y.view(), sums); }) /
                    (static_cast<double>(n) * width * width);
  r.stream_s = best_seconds([&] { kernels::axpy(0.5f, x.view(), y.view()); }) /
               (static_cast<double>(n) * width);
  std::vector<GlobalId> ids(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<GlobalId>(i);
  r.dropout_s = best_seconds([&] { kernels::dropout(y.view(), ids, 0.5f, 1, 0, 0); }) /
                (static_cast<double>(n) * width);
  measure_features(data, width, r);
  measure_packing(x, r);
  r.wire_byte_s = measure_wire_byte_seconds();
  r.source = "measured";
  return r;
}

KernelRateSet assumed_gpu_rates() {
  // Gathering a 4-byte value per entry-column at ~1.5 TB/s effective; a tall 64-wide GEMM
  // at ~25 T multiply-adds/s; an elementwise float read twice, written once at ~2.5 TB/s.
  KernelRateSet r;
  r.sparse_s = r.features_s = r.features_grad_s = 4.0 / 1.5e12;
  r.dense_s = r.weight_grad_s = 1.0 / 25e12;
  r.stream_s = r.dropout_s = 12.0 / 2.5e12;
  r.pack_float32_s = r.pack_bf16_s = r.pack_int8_s = 16.0 / 2.5e12;
  r.wire_byte_s = 0;  // NCCL and RDMA move bytes without the host's CPU
  r.source = "assumed: one H100-class GPU (HBM ~3 TB/s, fp32 ~50 TFLOP/s)";
  return r;
}

std::vector<std::pair<std::string, double>> named_rates(const KernelRateSet& rates) {
  std::vector<std::pair<std::string, double>> named;
  for (const RateKey& k : kRateKeys) named.emplace_back(k.name, rates.*(k.slot));
  return named;
}

KernelRateSet read_rates(const std::string& path) {
  std::vector<std::string> names;
  for (const RateKey& k : kRateKeys) names.emplace_back(k.name);
  const auto numbers = read_numbers(path, "--calibration", names, false);
  KernelRateSet r;
  for (const RateKey& k : kRateKeys) r.*(k.slot) = numbers.at(k.name);
  r.source = path;
  return r;
}

void write_rates(const std::string& path, const KernelRateSet& r) {
  std::ofstream out(path);
  out.precision(6);
  out << "# strata plan kernel rates, seconds per unit (" << r.source << ")\n";
  for (const auto& [name, value] : named_rates(r)) out << name << " " << value << "\n";
  STRATA_REQUIRE(out.good(), "--calibration ", path, ": cannot be written");
}

KernelRateSet rates_for(const PlanRequest& request, const Dataset* data) {
  const std::string& file = request.calibration;
  if (!file.empty() && std::filesystem::exists(file)) {
    try {
      return read_rates(file);
    } catch (const Error&) {
      if (!request.calibration_is_cache) throw;
    }
  }
  KernelRateSet r;
  if (request.cluster.device == "cuda") return assumed_gpu_rates();  // nothing measured to keep
  if (data != nullptr) {
    r = measure_cpu_rates(*data, request.hidden);
  } else {
    LoadOptions o;
    o.nodes = 100000;
    r = measure_cpu_rates(load_dataset("synthetic", o), request.hidden);
    r.source = "measured on a synthetic graph of 100,000 vertices";
  }
  if (!file.empty()) write_rates(file, r);
  return r;
}

}  // namespace strata
