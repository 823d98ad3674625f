#pragma once
// Element math on a reshape of a computed value, which passes/math_before_reshapes.h moves before
// the reshape into the value's kernel: a group norm as the torch frontend lowers one (statistics
// on [N, G, C/G, H, W], reshaped back) with per-channel weights, a residual and a SiLU after it;
// a pointwise chain split across a reshape with a per-channel bias. The CPU tier checks the
// rewrite and its values on the reference, the GPU tier (and the CPU kernel simulator) the kernels.
#include <string>
#include <vector>

namespace solder::testing {

struct ReshapeMathProgram {
  std::string name, text;
};

inline std::vector<ReshapeMathProgram> reshape_math_programs() {
  std::vector<ReshapeMathProgram> out;
  for (const std::string t : {"f16", "bf16", "f32"}) {
    // 16-bit values computed in f32, as the frontend widens them; f32 ones as they are.
    const bool narrow = t != "f32";
    auto widened = [&](const std::string& dst, const std::string& src) {
      return narrow ? "  " + dst + " = cast(" + src + ", dtype=f32)\n" : "";
    };
    const std::string xf = narrow ? "xf" : "xg", wf = narrow ? "wf" : "w3", rf = narrow ? "rf" : "r";
    std::string s = "fusion group_norm_silu_" + t + " {\n  input x: " + t + "[N, 32, H, W]\n  input w: " + t +
                    "[32]\n  input r: " + t + "[N, 32, H, W]\n  xg = reshape(x, shape=[N, 4, 8, H, W])\n" +
                    widened("xf", "xg") + "  v, m = var_mean(" + xf + ", axes=[2, 3, 4], keepdim=true, correction=0)\n" +
                    "  d = sub(" + xf + ", m)\n  eps = constant(value=1e-5, dtype=f32)\n  e = add(v, eps)\n" +
                    "  s = rsqrt(e)\n  y = mul(d, s)\n  y4 = reshape(y, shape=[N, 32, H, W])\n" +
                    "  w3 = reshape(w, shape=[32, 1, 1])\n" + widened("wf", "w3") + "  yw = mul(y4, " + wf + ")\n" +
                    widened("rf", "r") + "  z = add(yw, " + rf + ")\n  a = silu(z)\n" +
                    (narrow ? "  o = cast(a, dtype=" + t + ")\n  output o\n}\n" : "  output a\n}\n");
    out.push_back({"group_norm_silu_" + t, s});
  }
  out.push_back({"chain_bias_f32", R"(fusion chain_bias_f32 {
  input x: f32[B, C, 12]
  input b: f32[C, 1, 1]
  e = exp(x)
  t = tanh(x)
  e4 = reshape(e, shape=[B, C, 3, 4])
  t4 = reshape(t, shape=[B, C, 3, 4])
  a = add(e4, b)
  m = mul(a, t4)
  output m
}
)"});
  return out;
}

}  // namespace solder::testing
