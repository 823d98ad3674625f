#pragma once
// Programs of 2-D pointwise kernels (rows of 333, 65, 7,
// 1024 beside [1, M, K], [1, M, 1], [B, M, 1] and [K] operands): the rows in flight
// (KernelParams::row_unroll) that the CPU tests (tests/row_unroll_test.cpp), the GPU tier
// (tests/gpu/row_unroll_test.cpp) and the CPU kernel simulator share.
#include "solder/fusion.h"

namespace solder::testing {

// Seed 11 #053: silu(clamp(where(m0, x, 0).float(), -1.5, 2)) + y4, x [B, M, K] of dtype t, a bool
// [1, M, K] mask (full/dims) and y4 [B, M, 1] (a row operand), an f32 output.
// `weighted`: plus a [K] weight w (a column operand: element by element in phased rows), which
// keeps the 2-D plan with its rows in flight: without it, where M x K is a multiple of the
// vector (the mask's phase equals x's, as at the sweep's M = 1000), the mask lies in runs at the
// flat index and one row of R x C takes every operand as vectors (full/dims/seg).
inline Fusion where_clamp_silu_add(DType t, bool weighted = false) {
  Fusion f(weighted ? "where_clamp_silu_add_w" : "where_clamp_silu_add");
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
  Tensor m0 = f.input("m0", DType::Bool, {Dim(1), Dim::sym("M"), Dim::sym("K")});
  Tensor y4 = f.input("y4", t, {Dim::sym("B"), Dim::sym("M"), Dim(1)});
  Tensor a = cast(where(m0, x, constant(f, 0, t)), DType::F32);
  Tensor y = silu(clamp(a, -1.5, 2)) + cast(y4, DType::F32);
  if (weighted) y = y + cast(f.input("w", t, {Dim::sym("K")}), DType::F32);
  f.output(y);
  return f;
}

// Seed 8 #142: (y0 - x) * y1 + y2, x [B, M, K], y0 [1, M, 1] (a row operand by dims), y1
// [1, M, K] (full/dims), y2 [1, 1, K] (a weight: element by element in phased rows).
inline Fusion sub_mul_add_bcast(DType t) {
  Fusion f("sub_mul_add_bcast");
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
  Tensor y0 = f.input("y0", t, {Dim(1), Dim::sym("M"), Dim(1)});
  Tensor y1 = f.input("y1", t, {Dim(1), Dim::sym("M"), Dim::sym("K")});
  Tensor y2 = f.input("y2", t, {Dim(1), Dim(1), Dim::sym("K")});
  f.output((y0 - x) * y1 + y2);
  return f;
}

// Seed 37 #138: |x / (|y0| + 1) / (|y1| + 1)| chained through relu and two more divisions by
// (|y3| + 1), (|y4| + 1), x [B, M, K] of dtype t, y0 [B, 1, 1] (a row operand by dims), y1
// [B, M, 1] (a row operand), y3 [1, M, K] and y4 [M, K] (full/dims: in runs at the flat index
// where M x K is a multiple of the vector), every step rounded to t.
inline Fusion div_rows(DType t) {
  Fusion f("div_rows");
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
  Tensor y0 = f.input("y0", t, {Dim::sym("B"), Dim(1), Dim(1)});
  Tensor y1 = f.input("y1", t, {Dim::sym("B"), Dim::sym("M"), Dim(1)});
  Tensor y3 = f.input("y3", t, {Dim(1), Dim::sym("M"), Dim::sym("K")});
  Tensor y4 = f.input("y4", t, {Dim::sym("M"), Dim::sym("K")});
  Tensor q = relu(x / (abs(y0) + 1.0) / (abs(y1) + 1.0));
  f.output(abs(q / (abs(y3) + 1.0) / (abs(y4) + 1.0)));
  return f;
}

// x * y + b over [B, H] rows with an [H] weight (aligned rows keep its vectors) and a second
// output: two inputs loaded as vectors besides the weight.
inline Fusion mul_add_bias(DType t) {
  Fusion f("mul_add_bias");
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("H")});
  Tensor y = f.input("y", t, {Dim::sym("B"), Dim::sym("H")});
  Tensor b = f.input("b", t, {Dim::sym("H")});
  Tensor p = x * y;
  f.output(p + b);
  f.output(p);
  return f;
}

// silu(a) * b over the halves a, b of x [B, K] (seed 30 #024: K = 4098, odd halves), f16: no
// half starts vector-aligned in every row, so the plan reads one element a thread.
inline Fusion silu_of_halves(int64_t k) {
  Fusion f("silu_of_halves");
  Tensor x = f.input("x", DType::F16, {Dim::sym("B"), Dim(k)});
  f.output(silu(slice(x, 1, 0, k / 2)) * slice(x, 1, k / 2));
  return f;
}

// A var_mean of x² and an amax of |x| over every dim of x [B, H] (seed 17 #059's form where x
// is a slice: a full reduction over rows).
inline Fusion full_of_slice(DType t) {
  Fusion f("full_of_slice");
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("H")});
  Tensor xf = cast(x, DType::F32);
  VarMean vm = var_mean(xf * xf, {0, 1}, 1, false);
  f.output(vm.var);
  f.output(max(abs(xf), {0, 1}));
  return f;
}

}  // namespace solder::testing
