// What one layer costs to compute over some rows, in the units a machine's kernel rates
// are measured in (time_model.h): entry-columns of sparse products, multiply-adds of dense
// ones, floats of elementwise passes. Counted from the stages' code (layers/), forward,
// backward and the evaluation pass apart.
#pragma once
#include "strata/layers/model.h"

namespace strata {

struct Work {
  double sparse = 0;         // stored entries x columns of products with Â
  double features = 0;       // stored feature nonzeros x columns of products with sparse features
  double features_grad = 0;  // the same of the first weight's gradient
  double dense = 0;          // multiply-adds of dense products
  double weight_grad = 0;    // multiply-adds of weight gradients (summed in double on the CPU)
  double stream = 0;         // floats read and written by elementwise passes
  double dropout = 0;        // values masked by dropout (a hash per value)
  Work& operator+=(const Work& o) {
    sparse += o.sparse, features += o.features, features_grad += o.features_grad;
    dense += o.dense;
    weight_grad += o.weight_grad, stream += o.stream, dropout += o.dropout;
    return *this;
  }
  Work scaled(double f) const {
    return {sparse * f,      features * f, features_grad * f, dense * f,
            weight_grad * f, stream * f,   dropout * f};
  }
};

// Rows a rank computes: how many, the entries of their rows of the propagation matrix
// (self-loops included where the model has them) and the nonzeros of their features.
struct RowWork {
  double rows = 0, entries = 0, feature_nonzeros = 0;
  RowWork scaled(double f) const { return {rows * f, entries * f, feature_nonzeros * f}; }
};

struct LayerWork {
  Work forward, backward, eval;
};

// Layer l of the model over `r` (gcnii's input and output linear layers go with its first
// and last conv, as in ModelShape::costs).
LayerWork layer_work(const ModelConfig& model, const ModelShape& shape, int l, const RowWork& r);

// Adam over the stage's parameters: param, gradient and both moments read and written.
Work optimizer_work(double parameters);

}  // namespace strata
