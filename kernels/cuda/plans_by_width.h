// The SpMM plans of one sparse matrix, one per dense width, made on first use. Plain C++
// (tests/kernels checks it without a GPU).
#pragma once
#include <cstdint>
#include <map>
#include <memory>

namespace strata::kernels::cuda {

template <typename Plan>
class PlansByWidth {
 public:
  // The plan of `width`, made by make() (a std::unique_ptr<Plan>) the first time. The map
  // takes the plan only once make() has returned: a plan whose construction throws leaves
  // no entry behind, and the next call tries again.
  template <typename Make>
  Plan& get(std::int64_t width, Make&& make) {
    auto it = plans_.find(width);
    if (it == plans_.end()) it = plans_.emplace(width, make()).first;
    return *it->second;
  }
  bool contains(std::int64_t width) const { return plans_.contains(width); }

 private:
  std::map<std::int64_t, std::unique_ptr<Plan>> plans_;
};

}  // namespace strata::kernels::cuda
