#pragma once
// Programs of few long rows (inner reductions and norms split over several blocks) and the
// plans pinned by hand on them: the CPU tier compiles them, the GPU tier checks them.
#include <string>
#include <vector>

#include "solder/fusion.h"

namespace solder::testing {

// A norm or reduction over the rows of x [B, H]: layer_norm, rms_norm (with weight), softmax,
// var_mean (in f32), var0 (correction 0), sum_max_min (several outputs and an epilogue).
inline Fusion split_row_program(DType t, const std::string& kind) {
  Fusion f("split_" + kind);
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("H")});
  if (kind == "layer_norm") {
    f.output(layer_norm(x, 1, f.input("w", t, {Dim::sym("H")}), f.input("b", t, {Dim::sym("H")})));
  } else if (kind == "rms_norm") {
    f.output(rms_norm(x, 1, f.input("w", t, {Dim::sym("H")})));
  } else if (kind == "softmax") {
    f.output(softmax(x, 1));
  } else if (kind == "var_mean") {
    VarMean vm = var_mean(cast(x, DType::F32), {1}, 1, true);
    f.output(vm.var);
    f.output(vm.mean);
  } else if (kind == "var0") {
    f.output(var(x, {1}, 0, true));
  } else if (kind == "sum_max_min") {
    Tensor xf = cast(x, DType::F32);
    f.output(sum(xf, {1}, true) * 0.5);
    f.output(max(x, {1}, true));
    f.output(min(x, {1}, true));
  }
  return f;
}

// Group norm over the last two dims with weight and bias ([G, H] each), as the sweep writes it.
inline Fusion split_group_norm(DType t) {
  Fusion f("split_group_norm");
  Tensor x = f.input("x", t, {Dim::sym("N"), Dim::sym("G"), Dim::sym("H")});
  f.output(layer_norm(x, 2, f.input("w", t, {Dim::sym("G"), Dim::sym("H")}), f.input("b", t, {Dim::sym("G"), Dim::sym("H")})));
  return f;
}

// var over dims [1, 2] with keepdim, as seed 4 #045 writes it.
inline Fusion split_var12(DType t) {
  Fusion f("split_var12");
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
  f.output(var(x, {1, 2}, 1, true));
  return f;
}

// Plain reductions over dims [1, 2] of an input stored [K, B, M] and viewed [B, M, K] (the
// variant sweep's "perm" layout: rows read General), seed 9 #038 (sqrt |mean(x * y)|, y
// contiguous) and #128 (amin |x|).
inline Fusion perm_mean_mul(DType t) {
  Fusion f("perm_mean_mul");
  Tensor xs = f.input("xs", t, {Dim::sym("K"), Dim::sym("B"), Dim::sym("M")});
  Tensor y = f.input("y", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
  f.output(sqrt(abs(mean(permute(xs, {1, 2, 0}) * y, {1, 2}))));
  return f;
}
inline Fusion perm_amin_abs(DType t) {
  Fusion f("perm_amin_abs");
  Tensor xs = f.input("xs", t, {Dim::sym("K"), Dim::sym("B"), Dim::sym("M")});
  f.output(min(abs(permute(xs, {1, 2, 0})), {1, 2}));
  return f;
}

// Plans pinned by hand: many rows split (several waves of blocks taking their rows by ticket),
// a split of short rows, streamed shares, blocks of 128 threads.
struct SplitPin {
  const char* kind;
  DType t;
  Bindings sizes;
  const char* plan;
};
inline const std::vector<SplitPin>& split_row_pins() {
  static const std::vector<SplitPin> pins = {
      {"softmax", DType::F32, {{"B", 300}, {"H", 20000}}, "row_split=3"},
      {"var_mean", DType::F32, {{"B", 1000}, {"H", 4096}}, "row_split=8"},
      {"layer_norm", DType::BF16, {{"B", 37}, {"H", 5000}}, "row_split=2,threads_per_row=256"},
      {"rms_norm", DType::F16, {{"B", 5}, {"H", 100003}}, "row_split=16,looped"},
      {"sum_max_min", DType::BF16, {{"B", 7}, {"H", 3001}}, "row_split=5,threads_per_row=128"},
      {"layer_norm", DType::F32, {{"B", 3}, {"H", 1 << 20}}, "row_split=100,looped"},
  };
  return pins;
}

}  // namespace solder::testing
