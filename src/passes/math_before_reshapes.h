#pragma once
#include "solder/fusion.h"

namespace solder {

// Element math on a reshape of a computed value runs before the reshape, on the value's own
// shape, and the reshape moves below it:
//   y = var_mean-normalized x at [N, G, C/G, H, W]; r = reshape(y, [N, C, H, W]);
//   z = silu(r) * w[C, 1, 1]
//     -> z' = silu(y) * reshape(w, [G, C/G, 1, 1]); z = reshape(z', [N, C, H, W])
// A reshape of a computed value is a view of memory that the value's kernel must write first,
// so the math after it was a kernel of its own (a group norm and the SiLU after it: two
// launches and a round trip). The reshape must regroup dims (each of its dims the product of
// a run of the value's dims, or the reverse), the math's other operands be constants or
// values in memory (inputs, their views: their reshape is a view too) that are either the
// same along each regrouped run of dims or vary along a run that splits one dim (a split is
// always a strided view), and the reshaped value not broadcast by the math. The values are
// the same: every element is computed from the same elements. Where it moved math, the result
// has its commutative operands sorted, duplicates merged and dead nodes dropped again (the
// operands' shapes changed; math cloned for an operand may repeat a node).
Fusion math_before_reshapes(const Fusion& f);

}  // namespace solder
