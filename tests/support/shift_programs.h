#pragma once
// Pointwise programs whose inputs are read at phases the output's vectors do not share (the
// flat template's shift plans, KernelParams::shift): rotate-half RoPE over a head dim whose
// halves start off alignment (seed 7 #123: K = 4098, halves of 2049), the two halves of a view
// one element into wider rows (SwiGLU's gate, seed 7 #141, seed 6 #131), and a product of two
// inputs whose rows are padded to an odd stride. The CPU tier checks their plans and compiles,
// the GPU tier and the CPU kernel simulator their values.
#include <string>

#include "solder/fusion.h"

namespace solder::testing {

// x * cos + cat(-x[..., K/2:], x[..., :K/2]) * sin over x [B, M, K], cos and sin [M, K].
inline Fusion rope_halves(DType t, int64_t k) {
  Fusion f("rope_halves");
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim(k)});
  Tensor c = f.input("cos", t, {Dim::sym("M"), Dim(k)});
  Tensor s = f.input("sin", t, {Dim::sym("M"), Dim(k)});
  Tensor rot = cat({-slice(x, 2, k / 2), slice(x, 2, 0, k / 2)}, 2);
  f.output(x * c + rot * s);
  return f;
}

// act(a) * b (or b * act(a): `swap`) over the halves a, b of x = xw[:, off : off + 2h], a view
// into rows of W >= off + 2h elements; act is silu or gelu_tanh.
inline Fusion gated_halves(DType t, int64_t h, int64_t off, bool gelu, bool swap) {
  Fusion f("gated_halves");
  Tensor xw = f.input("xw", t, {Dim::sym("B"), Dim::sym("W")});
  Tensor x = slice(xw, 1, off, off + 2 * h);
  Tensor a = slice(x, 1, 0, h), b = slice(x, 1, h, 2 * h);
  Tensor g = gelu ? gelu_tanh(a) : silu(a);
  f.output(swap ? b * g : g * b);
  return f;
}

// x * y + 1 over [B, H]: with rows padded to an odd stride, every input row starts at its own
// phase while the output's rows are aligned.
inline Fusion padded_product(DType t) {
  Fusion f("padded_product");
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("H")});
  Tensor y = f.input("y", t, {Dim::sym("B"), Dim::sym("H")});
  f.output(x * y + 1.0);
  return f;
}

}  // namespace solder::testing
