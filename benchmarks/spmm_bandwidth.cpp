// SpMM achieved memory bandwidth next to a STREAM triad measured in the same run.
// Bytes counted for Y = Â X: the CSR arrays once, X once, Y once (the least traffic any
// implementation must move), so the fraction is a lower bound on bandwidth efficiency.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "strata/core/timer.h"
#include "strata/datasets/dataset.h"
#include "strata/graph/csr.h"
#include "strata/kernels/kernels.h"

using namespace strata;

namespace {

template <typename Fn>
double best_seconds(int repeats, Fn&& fn) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    Timer t;
    fn();
    best = std::min(best, t.seconds());
  }
  return best;
}

double stream_triad_gbs(std::size_t n) {
  std::vector<float> a(n, 1.0f), b(n, 2.0f), c(n, 3.0f);
  const double s = best_seconds(5, [&] {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
  });
  return 3.0 * 4.0 * static_cast<double>(n) / s / 1e9;
}

double spmm_gbs(const Csr& a, int width) {
  Matrix x(a.cols, width, 1.0f), y(a.rows, width);
  const double s = best_seconds(5, [&] { kernels::spmm(a.view(), x.view(), y.view()); });
  const double bytes = static_cast<double>(a.nnz()) * 8.0 + (a.rows + 1) * 8.0 +
                       (static_cast<double>(a.cols) + a.rows) * width * 4.0;
  return bytes / s / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  LoadOptions options;
  options.nodes = argc > 1 ? std::stoll(argv[1]) : 1000000;
  options.avg_degree = argc > 2 ? std::stod(argv[2]) : 20;
  options.features = 16;
  options.row_normalize = false;
  Timer gen;
  const Dataset d = make_rmat(options);
  const Csr a = gcn_normalize(d.adjacency, degrees_plus_one(d.adjacency));
  std::printf("R-MAT %lld vertices, %lld nonzeros of A+I, generated in %.2f s, %d threads\n",
              static_cast<long long>(a.rows), static_cast<long long>(a.nnz()), gen.seconds(),
              omp_get_max_threads());
  const double stream = stream_triad_gbs(std::size_t{1} << 26);
  std::printf("stream_triad_GBps,%.2f\n", stream);
  std::printf("width,spmm_GBps,fraction_of_stream\n");
  for (int width : {16, 32, 64, 128, 256}) {
    const double gbs = spmm_gbs(a, width);
    std::printf("%d,%.2f,%.3f\n", width, gbs, gbs / stream);
  }
  return 0;
}
