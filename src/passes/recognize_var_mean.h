#pragma once
#include "solder/fusion.h"

namespace solder {

// Statistics written by hand become the builder's var_mean, so a layer norm spelled with
// mean / var / squared deviations compiles as layer_norm does:
//   m = mean(x, A, k); d = sub(x, m'); v = mean(mul(d, d), A, k)   (m' = m or var_mean's mean)
//       -> var_mean(x, A, correction=0, k): v = .var, m = .mean
//   mean(x, A, k) beside var_mean(x, A, c, k)  -> that var_mean's .mean (the same value)
// The mean rewrite is exact (var_mean's mean is the mean). The variance is the same two-pass
// formula evaluated without rounding d and d*d to the dtype first: more accurate than the
// hand-written rounding, differing from it by about an ulp of the dtype (PyTorch's own var
// differs from the hand-written one the same way). Only floating x of f32 or f64.
Fusion recognize_var_mean(const Fusion& f);

}  // namespace solder
