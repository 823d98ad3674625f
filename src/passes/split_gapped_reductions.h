#pragma once
#include "solder/fusion.h"

namespace solder {

// A reduction over axes with a kept axis between them, the innermost axis among the reduced,
// becomes two: the trailing run of reduced axes first (contiguous rows for the inner template's
// vectors), then the rest over the partials, whose reduced trailing axes are now of size 1:
//   s = sum(x[B, M, K], [0, 2]) -> s1 = sum(x, [2], keepdim); s = sum(s1, [0, 2])
// One kernel would read each kept index's elements one at a time, across runs of K (seed 48
// #106: var over [0, 2] at 8 % of a copy). Means of equal-count partials and max/min are exact;
// sums and means of 16-bit inputs run both steps in f32; var_mean combines the partial means'
// spread with the partial variances (Chan), its correction from a count of the elements that
// the first step takes alongside. Left alone: trailing runs of fewer than 32 elements (known
// sizes), where the partials would outweigh the input.
Fusion split_gapped_reductions(const Fusion& f);

}  // namespace solder
