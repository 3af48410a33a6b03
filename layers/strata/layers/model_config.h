// The settings every model shares. Which models exist, and what each is, is model.h's.
#pragma once
#include <cstdint>

namespace strata {

enum class ModelKind { kGcn, kGcnii, kSage, kGin, kGat };

struct ModelConfig {
  int in_features = 0;
  int hidden = 16;
  int classes = 0;
  int num_layers = 2;  // graph layers, >= 1 (gcnii adds its two linear layers)
  float dropout = 0.5f;
  bool bias = true;  // gcn, sage, gin; gcnii convs have none, its linear layers always do
  std::uint64_t seed = 0;
  ModelKind kind = ModelKind::kGcn;
  float alpha = 0.1f;      // gcnii: weight of the initial residual h0 in every conv
  float lambda = 0.5f;     // gcnii: identity mapping beta_l = log(lambda / l + 1)
  bool learn_eps = false;  // gin: (1 + eps) weighs a vertex's own row, eps a parameter (else 0)
  // gat: attention heads of the hidden layers (concatenated: a hidden row is hidden · heads
  // wide; 1 for every other model), of the output layer (averaged), and the dropout of the
  // attention weights.
  int heads = 1;
  int output_heads = 1;
  float attention_dropout = 0.0f;

  // d_0 = in_features, d_l = hidden · heads, d_L = classes: the rows layer l reads and writes.
  int width(int l) const {
    return l == 0 ? in_features : l == num_layers ? classes : hidden * heads;
  }
};

}  // namespace strata
