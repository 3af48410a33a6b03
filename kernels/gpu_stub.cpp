// strata/kernels/gpu.h in a build without CUDA: every entry point throws.
#include "strata/core/error.h"
#include "strata/kernels/backend.h"
#include "strata/kernels/gpu.h"

namespace strata::kernels::gpu {
namespace {

[[noreturn]] void no_cuda(const char* what) {
  throw_input_error(what, ": built without CUDA");
}

}  // namespace

DeviceMatrix::DeviceMatrix(std::int64_t rows, std::int64_t cols) : rows_(rows), cols_(cols) {
  no_cuda("gpu::DeviceMatrix");
}
DeviceMatrix DeviceMatrix::upload(ConstMatrixView, const Context&) {
  no_cuda("gpu::DeviceMatrix::upload");
}
Matrix DeviceMatrix::download(const Context&) const {
  no_cuda("gpu::DeviceMatrix::download");
}
Libraries::Libraries(const Context& context) : context_(context) {
  no_cuda("gpu::Libraries");
}
Libraries::~Libraries() = default;
DeviceCsr::DeviceCsr(CsrView a, const Context&)
    : rows_(a.rows), cols_(a.cols), nnz_(0), wide_(false) {
  no_cuda("gpu::DeviceCsr");
}
struct SpmmPlan::Descriptors {};
SpmmPlan::SpmmPlan(const Libraries& libraries, const DeviceCsr& a, std::int64_t width, bool)
    : libraries_(libraries), a_(a), width_(width) {
  no_cuda("gpu::SpmmPlan");
}
SpmmPlan::~SpmmPlan() = default;
void SpmmPlan::run(DeviceConstView, DeviceView, float) {
  no_cuda("gpu::SpmmPlan::run");
}
void gemm(const Libraries&, bool, bool, float, DeviceConstView, DeviceConstView, float,
          DeviceView) {
  no_cuda("gpu::gemm");
}
void relu_forward(const Context&, DeviceConstView, DeviceView) {
  no_cuda("gpu::relu_forward");
}
void relu_backward(const Context&, DeviceConstView, DeviceConstView, DeviceView) {
  no_cuda("gpu::relu_backward");
}
void add_bias_rows(const Context&, DeviceView, const float*) {
  no_cuda("gpu::add_bias_rows");
}
void dropout(const Context&, DeviceView, const GlobalId*, float, std::uint64_t, std::int64_t,
             std::int32_t) {
  no_cuda("gpu::dropout");
}
double masked_log_softmax_nll(const Context&, DeviceConstView, const std::int32_t*,
                              const std::uint8_t*, double, DeviceView) {
  no_cuda("gpu::masked_log_softmax_nll");
}
void adam_step(const Context&, float*, const float*, float*, float*, std::int64_t,
               const AdamConfig&, std::int64_t) {
  no_cuda("gpu::adam_step");
}

}  // namespace strata::kernels::gpu

namespace strata::kernels {

std::unique_ptr<Backend> make_cuda_backend(const gpu::Context&, bool) {
  throw_input_error("--device cuda: built without CUDA");
}

}  // namespace strata::kernels
