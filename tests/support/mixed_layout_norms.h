#pragma once
// Norms of x + r where x is transposed in memory (xt stored [H, B], read through a permute) and
// r and the output are rows: the inner scheduler's staged inputs (CPU and GPU tests).
#include <optional>
#include <string>

#include "solder/fusion.h"

namespace solder::testing {

inline Fusion norm_of_mixed(DType t, const std::string& kind) {
  Fusion f(kind + "_mixed");
  Tensor xt = f.input("xt", t, {Dim::sym("H"), Dim::sym("B")});
  Tensor r = f.input("r", t, {Dim::sym("B"), Dim::sym("H")});
  Tensor x = permute(xt, {1, 0}) + r;
  if (kind == "rms") f.output(rms_norm(x, 1, f.input("w", t, {Dim::sym("H")})));
  else if (kind == "rms_plain") f.output(rms_norm(x, 1, std::nullopt));
  else if (kind == "softmax") f.output(softmax(x, 1));
  else f.output(layer_norm(x, 1, std::nullopt, f.input("b", t, {Dim::sym("H")})));
  return f;
}

}  // namespace solder::testing
