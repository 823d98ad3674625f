#pragma once
#include "solder/fusion.h"

namespace solder {

// Spellings of the same math that hand-written norms use, rewritten to the builder's:
//   pow(x, 2)                  -> mul(x, x)                 exact (one rounding of x*x either way)
//   reciprocal(sqrt(s))        -> rsqrt(s)                  f32 statistics only, see below
//   div(1, sqrt(s))            -> rsqrt(s)
//   div(a, sqrt(s)), sqrt(s) broadcast along a's dims -> mul(a, rsqrt(s))
// The rsqrt rules are not bit-exact: they replace two roundings by two others, about 1-2 f32
// ulps apart (what PyTorch's own layer_norm computes: y = (x - mean) * rsqrt(var + eps)). The
// GPU already divides by a row statistic as a multiply by its reciprocal, and f32 rsqrt is an
// approximation there, so this moves results by no more than codegen does. They apply only
// where s is f32 and derives from a reduction (a norm's statistics), never to elementwise
// math or f16/bf16 values, whose rounding stays exactly as written.
Fusion normalize_math(const Fusion& f);

}  // namespace solder
