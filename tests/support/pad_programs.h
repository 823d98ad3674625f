#pragma once
// Pads of several dims, read in one kernel through a pad of a pad (segment.h's pad_chain): F.pad
// of an image's H and W as the torch frontend lowers it (a cat of fills per dim), its fill
// beside an added residual of the padded shape, a cat inside a cat along the same axis, and pads
// written by hand (two along one axis merge into one). The CPU tier checks the rewrite and its
// values on the reference; the GPU tier and the CPU kernel simulator the kernels.
#include <string>
#include <vector>

namespace solder::testing {

struct PadProgram {
  std::string name, text;
  int pads;  // pad nodes once lowered: one an input's padded dim
};

inline std::vector<PadProgram> pad_programs() {
  std::vector<PadProgram> out;
  for (const std::string t : {"f16", "bf16", "f32"}) {
    // F.pad(x, (1, 2, 3, 1), value=-1.5).exp(): W by 1 and 2, H by 3 and 1.
    out.push_back({"pad_hw_exp_" + t, "fusion pad_hw_exp_" + t + " {\n  input x: " + t + "[N, C, H, W]\n  c = constant(value=-1.5, dtype=" + t +
                                         ")\n  l = expand(c, shape=[N, C, H, 1])\n  r = expand(c, shape=[N, C, H, 2])\n"
                                         "  k = cat(l, x, r, axis=3)\n  t = expand(c, shape=[N, C, 3, 3+W])\n"
                                         "  b = expand(c, shape=[N, C, 1, 3+W])\n  k2 = cat(t, k, b, axis=2)\n  e = exp(k2)\n  output e\n}\n",
                   2});
    // A conv's zero padding of one on every side, plus a residual of the padded shape.
    out.push_back({"pad_hw_add_" + t, "fusion pad_hw_add_" + t + " {\n  input x: " + t + "[N, C, H, W]\n  input y: " + t +
                                         "[N, C, 2+H, 2+W]\n  c = constant(value=0, dtype=" + t +
                                         ")\n  l = expand(c, shape=[N, C, H, 1])\n  k = cat(l, x, l, axis=3)\n"
                                         "  t = expand(c, shape=[N, C, 1, 2+W])\n  k2 = cat(t, k, t, axis=2)\n  o = add(k2, y)\n  output o\n}\n",
                   2});
  }
  out.push_back({"cat_in_cat_f32", R"(fusion cat_in_cat_f32 {
  input a: f32[B, 3]
  input b: f32[B, 4]
  input c: f32[B, 5]
  ea = exp(a)
  k = cat(ea, b, axis=1)
  n = neg(c)
  k2 = cat(n, k, axis=1)
  o = mul(k2, k2)
  output o
}
)",
                 3});
  out.push_back({"pads_by_hand_f32", R"(fusion pads_by_hand_f32 {
  input x: f32[B, H, W]
  p1 = pad(x, axis=2, start=1, end=2)
  p2 = pad(p1, axis=2, start=3, end=0)
  p3 = pad(p2, axis=0, start=0, end=2)
  e = exp(p3)
  output e
}
)",
                 2});
  return out;
}

}  // namespace solder::testing
