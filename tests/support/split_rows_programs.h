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

// Reductions over several axes of permuted inputs (the executor walks the reduced dims in the
// dominant input's memory order: inner_reduction_order). x = permute(xs, {1, 2, 0}) of xs stored
// [K, B, M]: reduced dims M (stride 1) and K (stride B * M).
//   mean_mul_pp: sqrt |mean(x * y)| over [1, 2], y permuted too (both read as runs of M)
//   var_keep:    var_mean over [1, 2] with keepdim (Welford), in f32
//   norm:        (x + r) less its mean over [1, 2], r permuted too: an element output, contiguous,
//                written General along the memory-ordered columns
//   sum_02:      sum over [0, 2] (a kept dim, M, innermost: the order stays declared)
//   sum4:        sum over [1, 2, 3] of x [A, B, C, D] stored [D, A, C, B]
inline Fusion perm_reduction(DType t, const std::string& kind) {
  Fusion f("perm_" + kind);
  auto f32 = [&](const Tensor& v) { return t == DType::F32 ? v : cast(v, DType::F32); };
  if (kind == "sum4") {
    Tensor xs = f.input("xs", t, {Dim::sym("D"), Dim::sym("A"), Dim::sym("C"), Dim::sym("B")});
    f.output(sum(f32(permute(xs, {1, 3, 2, 0})), {1, 2, 3}));
    return f;
  }
  const Shape stored{Dim::sym("K"), Dim::sym("B"), Dim::sym("M")};
  Tensor x = permute(f.input("xs", t, stored), {1, 2, 0});
  if (kind == "mean_mul_pp") {
    Tensor y = permute(f.input("ys", t, stored), {1, 2, 0});
    f.output(sqrt(abs(mean(f32(x) * f32(y), {1, 2}))));
  } else if (kind == "var_keep") {
    VarMean vm = var_mean(f32(x), {1, 2}, 1, true);
    f.output(vm.var);
    f.output(vm.mean);
  } else if (kind == "norm") {
    Tensor h = f32(x) + f32(permute(f.input("rs", t, stored), {1, 2, 0}));
    Tensor c = h - mean(h, {1, 2}, true);
    f.output(t == DType::F32 ? c : cast(c, t));
  } else if (kind == "sum_02") {
    f.output(sum(f32(x), {0, 2}));
  }
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
      {"sum_max_min", DType::BF16, {{"B", 7}, {"H", 3001}}, "row_split=5,threads_per_row=128,vec=1,col_vec=0"},  // split rows take no phased rows
      {"layer_norm", DType::F32, {{"B", 3}, {"H", 1 << 20}}, "row_split=100,looped"},
  };
  return pins;
}

}  // namespace solder::testing
