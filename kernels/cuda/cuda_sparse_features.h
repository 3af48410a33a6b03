// The CUDA backend's sparse input features (backend.h's SparseFeatureMatrix).
#pragma once
#include <memory>

#include "strata/kernels/backend.h"
#include "strata/kernels/gpu.h"

namespace strata::kernels {

std::unique_ptr<SparseFeatureMatrix> make_cuda_sparse_features(CsrView x,
                                                               const gpu::Libraries& libraries,
                                                               bool deterministic_spmm);

}  // namespace strata::kernels
