#pragma once
// Norms whose operands disagree on their fastest dim (CPU and GPU tests of the inner scheduler's
// staged operands): x + r where x is transposed in memory (xt stored [H, B], read through a
// permute) and r and the output are rows (staged inputs); and norms of rows written transposed
// (staged outputs).
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

// Softmax (or a plain layer norm, in f32) over the normalized axis N of x, of which the output is
// contiguous while x is stored with N innermost: 2-d, x [N, B] stored [B, N] (xt, read through a
// permute); 3-d (seed 9 #047's shape), x [B, N, K] stored [B, K, N]. The rows (B, or B and K) of x
// run along N at unit stride; the output's rows are unit-stride along their innermost dim.
inline Fusion norm_into_transposed(DType t, const std::string& kind, bool three_d) {
  Fusion f(kind + (three_d ? "_mid_T" : "_dim0_T"));
  Tensor x = three_d ? permute(f.input("xt", t, {Dim::sym("B"), Dim::sym("K"), Dim::sym("N")}), {0, 2, 1})
                     : permute(f.input("xt", t, {Dim::sym("B"), Dim::sym("N")}), {1, 0});
  const int64_t axis = three_d ? 1 : 0;
  Tensor xf = t == DType::F32 ? x : cast(x, DType::F32);
  Tensor y;
  if (kind == "softmax") {
    y = softmax(xf, axis);
  } else {
    VarMean vm = var_mean(xf, {axis}, 0, true);
    y = (xf - vm.mean) * rsqrt(vm.var + 1e-5);
  }
  f.output(t == DType::F32 ? y : cast(y, t));
  return f;
}

}  // namespace solder::testing
