#include "profile_output.h"

#include <cstdio>

namespace strata::cli {
namespace {

double ms(double seconds) {
  return seconds * 1e3;
}

// time / floor, or "-" where there is no floor.
void print_ratio(double seconds, double floor_s) {
  if (floor_s > 0)
    std::printf(" %7.1fx\n", seconds / floor_s);
  else
    std::printf("       -\n");
}

}  // namespace

void print_profile(const Profile& p) {
  if (p.epochs == 0) return;
  std::printf("profile, per epoch over %.0f epoch%s (training step and evaluation):\n", p.epochs,
              p.epochs == 1 ? "" : "s");
  std::printf("%-29s %7s %9s %9s %9s %9s %9s %8s\n", "operation", "calls", "ms", "MB", "gather MB",
              "GFLOP", "floor ms", "x floor");
  for (const OpLine& op : p.ops) {
    std::printf("%-29s %7.0f %9.2f %9.1f %9.1f %9.3f %9.2f", op.op.c_str(), op.calls,
                ms(op.seconds), op.bytes / 1e6, op.gather_bytes / 1e6, op.flops / 1e9,
                ms(op.floor_s));
    print_ratio(op.seconds, op.floor_s);
  }
  std::printf("%-29s %7s %9.2f\n", "communication wait", "", ms(p.comm_wait_s));
  std::printf("%-29s %7s %9.2f\n", "other (between operations)", "", ms(p.other_s));
  std::printf("%-29s %7s %9.2f %39s %9.2f", "epoch", "", ms(p.epoch_s), "", ms(p.floor_s));
  print_ratio(p.epoch_s, p.floor_s);
  if (p.roofline.source == "none") {
    std::printf("roofline: none measured for this device (give one with --roofline FILE)\n");
    return;
  }
  std::printf("roofline (%s): stream", p.roofline.source.c_str());
  for (const StreamRate& s : p.roofline.stream)
    std::printf(" %.0f GB/s at %.0f MiB,", s.bytes_per_s / 1e9, s.bytes / (1 << 20));
  std::printf(" gather %.0f GB/s, GEMM %.0f GFLOP/s\n", p.roofline.gather_bytes_per_s / 1e9,
              p.roofline.gemm_flops_per_s / 1e9);
}

nlohmann::json profile_json(const Profile& p) {
  nlohmann::json ops = nlohmann::json::array();
  for (const OpLine& op : p.ops)
    ops.push_back({{"op", op.op},
                   {"calls", op.calls},
                   {"seconds", op.seconds},
                   {"bytes", op.bytes},
                   {"gather_bytes", op.gather_bytes},
                   {"flops", op.flops},
                   {"floor_s", op.floor_s}});
  nlohmann::json stream = nlohmann::json::array();
  for (const StreamRate& s : p.roofline.stream)
    stream.push_back({{"bytes", s.bytes}, {"bytes_per_s", s.bytes_per_s}});
  return {{"event", "profile"},
          {"epochs", p.epochs},
          {"epoch_s", p.epoch_s},
          {"comm_wait_s", p.comm_wait_s},
          {"other_s", p.other_s},
          {"floor_s", p.floor_s},
          {"ops", ops},
          {"roofline",
           {{"source", p.roofline.source},
            {"stream", stream},
            {"gather_bytes_per_s", p.roofline.gather_bytes_per_s},
            {"gemm_flops_per_s", p.roofline.gemm_flops_per_s}}}};
}

}  // namespace strata::cli
