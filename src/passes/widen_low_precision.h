#pragma once
#include "solder/fusion.h"

namespace solder {

// f16/bf16 add, sub, mul and div become the explicit f32 form the examples spell out:
//   add(a, b): f16  ->  cast(add(cast(a, f32), cast(b, f32)), f16)
// Exact: one rounding of an f32 result of these ops to f16 (11-bit significand) or bf16 (8)
// equals the one rounding of the exact result, since f32's 24 bits >= 2p + 2 (double rounding
// is innocuous for + - * /). So `x + a` on f16 tensors and `(x.float() + a.float()).half()`
// are one graph, and codegen sees the form it runs as f16x2/bf16x2 instructions.
// f16/bf16 constant operands become f32 constants of the same (rounded) value.
Fusion widen_low_precision(const Fusion& f);

}  // namespace solder
