#pragma once
#include "solder/fusion.h"

namespace solder {

// cast(u(cast(x, f32)), t) -> u(x) for x of t = f16 or bf16 and u a unary op (exp, tanh, gelu,
// silu, sqrt, neg, abs, relu, ...) whose f32 result nothing else reads. `x.float().tanh().half()`
// and `x.tanh()` become one graph, the form codegen runs with the 16-bit results' fast
// approximations. neg, abs, relu and sqrt are exact (sqrt: f32 has 2p+2 bits). For the others
// PyTorch eager computes u(x) on f16/bf16 exactly so, in f32 and rounded once; the IR's form
// rounds the exact value once, which differs from rounding the f32 value only where the f32
// rounding crosses a 16-bit rounding boundary: at most one ulp of t, rarely.
Fusion narrow_unary_math(const Fusion& f);

}  // namespace solder
