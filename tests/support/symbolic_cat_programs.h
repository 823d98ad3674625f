#pragma once
// Cats whose pieces have symbolic sizes (H, K+-1*min(K, 64), ceildiv(min(H, 1000000), 2)),
// read as pieces in one kernel with the pads' and windows' bounds as runtime scalars
// (passes/cat_pieces.cpp): the CPU tier checks the graph, the reference and the plans' vector
// widths, the GPU tier (tests/gpu/symbolic_cat_test.cpp) the values.
#include <string>

#include "ir/parser.h"
#include "solder/fusion.h"

namespace solder::testing {

// Rotate-half RoPE over a symbolic head dim K, halves at a constant h (seed 6 #031:
// layout/rope_symK, h = 256 where K = 512).
inline Fusion rope_sym(const std::string& dt, int64_t h) {
  const std::string H = std::to_string(h);
  return parse_fusion("fusion rope_sym {\n  input x: " + dt + "[B, M, K]\n  input c: " + dt + "[M, K]\n  input s: " + dt +
                      "[M, K]\n  x2 = slice(x, axis=2, start=" + H + ")\n  n = neg(x2)\n  x1 = slice(x, axis=2, start=0, end=" +
                      H + ")\n  rot = cat(n, x1, axis=2)\n  xc = mul(x, c)\n  rs = mul(rot, s)\n  y = add(xc, rs)\n  output y\n}\n");
}

// cat(cast(a), cast(b * 2)) of two f32 [B, H] along `axis` (seed 7 #106:
// layout/cat_cast_axis1, f32 16384 x 128).
inline Fusion cat_cast(const std::string& dt, int axis) {
  return parse_fusion("fusion cat_cast {\n  input a: f32[B, H]\n  input b: f32[B, H]\n  ca = cast(a, dtype=" + dt +
                      ")\n  two = constant(value=2, dtype=f32)\n  b2 = mul(b, two)\n  cb = cast(b2, dtype=" + dt +
                      ")\n  k = cat(ca, cb, axis=" + std::to_string(axis) + ")\n  output k\n}\n");
}

// Three pieces of sizes H, W and 3 along the last axis, a leaf that broadcasts along it, the cat
// itself an output too.
inline Fusion three_sym() {
  return parse_fusion(R"(fusion three_sym {
  input x: f32[B, H]
  input y: f32[B, W]
  input z: bf16[B, 3]
  input r: f32[B, 1]
  tx = tanh(x)
  my = mul(y, r)
  cz = cast(z, dtype=f32)
  k = cat(tx, my, cz, axis=1)
  e = exp(k)
  output e
  output k
}
)");
}

// Pieces of sizes A and C along the leading axis.
inline Fusion lead_sym() {
  return parse_fusion(R"(fusion lead_sym {
  input x: f16[A, H]
  input y: f16[C, H]
  t = relu(x)
  k = cat(t, y, axis=0)
  o = add(k, k)
  output o
}
)");
}

// The odd and even columns of x (strided views: sizes ceildiv(min(H, 1000000), 2) and
// ceildiv(min(H, 1000000) + -1, 2)) swapped, one negated.
inline Fusion swap_strided() {
  return parse_fusion(R"(fusion swap_strided {
  input x: f32[B, H]
  a = slice(x, axis=1, start=0, end=1000000, step=2)
  b = slice(x, axis=1, start=1, end=1000000, step=2)
  n = neg(a)
  k = cat(b, n, axis=1)
  two = constant(value=2, dtype=f32)
  y = mul(k, two)
  output y
}
)");
}

}  // namespace solder::testing
