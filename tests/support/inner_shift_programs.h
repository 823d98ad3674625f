#pragma once
// Inner norms over a column slice x = xw[:, off : off + h] of rows of W elements (the sweep's
// `slice` layout, seed 9 #144 and seed 10 #067: every row of x at another phase where W is odd),
// beside an output and weights whose rows are aligned: the inner template's shift plans
// (KernelParams::shift: each Full input read at its own phase). The CPU tier checks their plans
// and compiles, the GPU tier and the CPU kernel simulator (`innershift_` cases) their values.
#include <limits>
#include <string>
#include <vector>

#include "solder/fusion.h"

namespace solder::testing {

// w > 0: x = xw[:, off : off + h] of xw [B, w]; w = 0: x [B, h] an input itself (its layout
// then the caller's: first_plan's InputLayout, the simulator's Layout).
// kind: "rms" (no weight, #144), "rms_w" (weight [h], #067), "ln_w" (layer norm, weight and
// bias), "ln_res" (layer norm of x + r, r [B, h] contiguous, weight and bias), "softmax",
// "softmax_mask" (softmax of where(m, x, -inf), a bool mask m [h] broadcast over the rows).
inline Fusion sliced_norm(DType t, const std::string& kind, int64_t h, int64_t off, int64_t w) {
  Fusion f("sliced_" + kind);
  Tensor x = w > 0 ? slice(f.input("xw", t, {Dim::sym("B"), Dim(w)}), 1, off, off + h) : f.input("x", t, {Dim::sym("B"), Dim(h)});
  if (kind == "rms") {
    f.output(rms_norm(x, 1, std::nullopt));
  } else if (kind == "rms_w") {
    Tensor w = f.input("w", t, {Dim(h)});
    f.output(rms_norm(x, 1, w));
  } else if (kind == "ln_w") {
    Tensor w = f.input("w", t, {Dim(h)});
    Tensor b = f.input("b", t, {Dim(h)});
    f.output(layer_norm(x, 1, w, b));
  } else if (kind == "ln_res") {
    Tensor r = f.input("r", t, {Dim::sym("B"), Dim(h)});
    Tensor w = f.input("w", t, {Dim(h)});
    Tensor b = f.input("b", t, {Dim(h)});
    f.output(layer_norm(x + r, 1, w, b));
  } else if (kind == "softmax_mask") {
    Tensor m = f.input("m", DType::Bool, {Dim(h)});
    f.output(softmax(where(m, x, constant(f, -std::numeric_limits<double>::infinity(), t)), 1));
  } else {
    f.output(softmax(x, 1));
  }
  return f;
}

// The GPU tier's pinned plans over sliced_norm(t, kind, 1000, 1, 1003): rows within a warp and
// across warps, several rows per block, the register prefetch with and without tickets, none.
// The CPU tier compiles the same pins (inner_shift_test.cpp).
inline const std::vector<std::string> kInnerShiftPins = {
    "threads_per_row=32,rows_per_block=2,prefetch=0", "threads_per_row=16,rows_per_block=8,prefetch=0",
    "threads_per_row=32,rows_per_block=1,prefetch,tickets=0", "threads_per_row=64,rows_per_block=1,prefetch,tickets",
    "threads_per_row=128,rows_per_block=2,prefetch,tickets"};

}  // namespace solder::testing
