#pragma once
#include "solder/fusion.h"

namespace solder {

// view(cast(x)) -> cast(view(x)) where x is an input or a view of one (transpose, permute,
// reshape, expand, slice, squeeze, unsqueeze). Exact: a cast is elementwise, so it commutes
// with any view. `x.float().t()` and `x.t().float()` become one graph, and the view moves
// next to the input, where it is metadata only: a view between a cast and its consumers ends
// a kernel segment, so the cast was a kernel of its own writing a widened copy of x.
// The original cast stays for any other consumer (a second cast of x fuses where it is used).
Fusion views_before_casts(const Fusion& f);

}  // namespace solder
