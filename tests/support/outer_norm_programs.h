#pragma once
// Normalizations over a non-innermost axis (the outer persistent normalization's programs): the
// CPU tier checks their plans and compiles, the GPU tier runs them against the reference.
#include <cmath>
#include <utility>
#include <vector>

#include "solder/fusion.h"

namespace solder::testing {

// softmax / log_softmax over `axis` of x [B, M, K] (the first `rank` of those), optionally of a
// masked, scaled x with the mask along the axis only.
inline Fusion softmax_over(DType t, int rank, int64_t axis, bool log = false, bool mask = false) {
  Fusion f("softmax_probe");
  Shape shape;
  const char* names[] = {"B", "M", "K"};
  for (int i = 0; i < rank; ++i) shape.push_back(Dim::sym(names[i]));
  Tensor x = f.input("x", t, shape);
  if (mask) {
    Shape ms(rank, Dim(1));
    ms[axis] = shape[axis];
    x = where(f.input("mask", DType::Bool, ms), x * 0.125, constant(f, -INFINITY, t));
  }
  f.output(log ? log_softmax(x, axis) : softmax(x, axis));
  return f;
}

// A layer norm (or rms norm) over the rows of a transposed view: xt is [H, B] in memory.
inline Fusion norm_of_transposed(DType t, bool rms) {
  Fusion f(rms ? "rms_T" : "ln_T");
  Tensor xt = f.input("xt", t, {Dim::sym("H"), Dim::sym("B")});
  Tensor w = f.input("w", t, {Dim::sym("H")});
  Tensor x = permute(xt, {1, 0});
  if (rms) f.output(rms_norm(x, 1, w));
  else f.output(layer_norm(x, 1, w, f.input("b", t, {Dim::sym("H")})));
  return f;
}

// A layer norm of x + r where x is transposed (xt is [H, B] in memory) and the residual r lies
// along the rows ([B, H]: its reduced rows unit-stride, its kept columns not; seed 7 #068).
inline Fusion norm_of_transposed_res(DType t) {
  Fusion f("ln_T_res");
  Tensor xt = f.input("xt", t, {Dim::sym("H"), Dim::sym("B")});
  Tensor r = f.input("r", t, {Dim::sym("B"), Dim::sym("H")});
  Tensor w = f.input("w", t, {Dim::sym("H")});
  f.output(layer_norm(permute(xt, {1, 0}) + r, 1, w, f.input("b", t, {Dim::sym("H")})));
  return f;
}

// A softmax (or log_softmax) over the rows of a transposed view (xt is [H, B] in memory),
// optionally of x / 8 where a bool mask [B, 1] keeps whole rows (to the outer normalization a
// column input, held for the whole kernel).
inline Fusion softmax_of_transposed(DType t, bool log = false, bool mask = false) {
  Fusion f(log ? "log_softmax_T" : "softmax_T");
  Tensor x = permute(f.input("xt", t, {Dim::sym("H"), Dim::sym("B")}), {1, 0});
  if (mask) x = where(f.input("mask", DType::Bool, {Dim::sym("B"), Dim(1)}), x * 0.125, constant(f, -INFINITY, t));
  f.output(log ? log_softmax(x, 1) : softmax(x, 1));
  return f;
}

// The register budget's corpus (register_model_test, bench/experiments/outer_norm_registers.cpp):
// normalizations over transposed views and over a middle axis, f32/f16/bf16, at sizes where the
// outer_norm scheduler holds rows (and one where f32's rows go to the inner scheduler, staged).
inline std::vector<std::pair<Fusion, Bindings>> outer_norm_register_corpus() {
  std::vector<std::pair<Fusion, Bindings>> out;
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    for (const Bindings& b : std::vector<Bindings>{{{"B", 4096}, {"H", 16384}}, {{"B", 2048}, {"H", 8192}}}) {
      out.emplace_back(softmax_of_transposed(t, false, true), b);
      out.emplace_back(softmax_of_transposed(t, true, false), b);
    }
    for (const Bindings& b : std::vector<Bindings>{{{"B", 5120}, {"H", 6144}}, {{"B", 64}, {"H", 16384}}}) {
      out.emplace_back(norm_of_transposed(t, false), b);
      out.emplace_back(norm_of_transposed(t, true), b);
    }
    out.emplace_back(norm_of_transposed_res(t), Bindings{{"B", 8192}, {"H", 4097}});
    out.emplace_back(softmax_over(t, 3, 1, false, true), Bindings{{"B", 16}, {"M", 1000}, {"K", 4097}});
    out.emplace_back(softmax_over(t, 3, 1, true), Bindings{{"B", 16}, {"M", 100}, {"K", 64}});
  }
  return out;
}

}  // namespace solder::testing
