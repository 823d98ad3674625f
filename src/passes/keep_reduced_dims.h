#pragma once
#include "solder/fusion.h"

namespace solder {

// A reduction without keepdim whose result feeds element math of one operand (the rest
// constants: a scale, a sqrt, an abs) keeps its reduced dims, the element math runs on the kept
// shape, and a reshape view drops the dims where anything else reads the values:
//   r = amax(x, [1]); y = mul(r, 0.5)
//     -> r' = amax(x, [1], keepdim); y' = mul(r', 0.5); y = reshape(y', [B])
// The same values (a size-1 dim changes no element), and the element math joins the reduction's
// kernel: the segmenter keeps math on a reduction's result in its kernel only where the result
// has the kernel's rank (a result without its dims would broadcast along the wrong axis there).
// Full reductions (every axis) are left as they are: their kernels take scalar epilogues. A
// reshape that only drops size-1 dims of a computed value heads a chain the same way.
Fusion keep_reduced_dims(const Fusion& f);

}  // namespace solder
