#pragma once
// Full reductions (every dim reduced) of x * y over [B, M, K] (seed 11 #129): the transpose
// template's reducing tiles where x and y disagree on their fastest dim. Shared by the CPU
// scheduler tests (tests/transpose_scheduler_test.cpp: x laid out by the caller's strides) and
// the GPU tier (tests/gpu/transpose_test.cpp: x stored [B, K, M] and permuted in the program).
#include <string>

#include "solder/fusion.h"

namespace solder::testing {

// `kind`: sum, amax, var_mean (both outputs), post (sqrt(var) + 2 mean in dtype t, and the mean
// of x * y), one_input (the sum of x alone). `permuted`: x an input stored [B, K, M], permuted
// to [B, M, K] in the program.
inline Fusion full_reduction_of(DType t, const std::string& kind, bool permuted = false) {
  Fusion f(std::string(permuted ? "full_red_perm_" : "full_red_") + kind);
  Tensor x = permuted ? permute(f.input("x", t, {Dim::sym("B"), Dim::sym("K"), Dim::sym("M")}), {0, 2, 1})
                      : f.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
  Tensor y = f.input("y", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
  Tensor xf = t == DType::F32 ? x : cast(x, DType::F32), yf = t == DType::F32 ? y : cast(y, DType::F32);
  if (kind == "sum") f.output(sum(xf * yf, {0, 1, 2}));
  if (kind == "amax") f.output(amax(x * y, {0, 1, 2}));
  if (kind == "var_mean") {
    VarMean vm = var_mean(xf * yf, {0, 1, 2}, 1, false);
    f.output(vm.var);
    f.output(vm.mean);
  }
  if (kind == "post") {
    VarMean vm = var_mean(xf * yf, {0, 1, 2}, 0, false);
    Tensor r = sqrt(vm.var) + vm.mean * 2.0;
    f.output(t == DType::F32 ? r : cast(r, t));
    f.output(mean(xf * yf, {0, 1, 2}));
  }
  if (kind == "one_input") f.output(sum(xf, {0, 1, 2}));
  return f;
}

}  // namespace solder::testing
