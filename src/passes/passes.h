#pragma once
// Graph rewrites run before segmentation. Each returns a new, verified fusion with the same
// inputs and outputs (names kept). Order and reasons: src/pipeline/pipeline.cpp.
#include "solder/fusion.h"

namespace solder {

// cast(cast(x, wide), x.dtype) -> x when `wide` represents every value of x's dtype exactly
// (e.g. f16 -> f32 -> f16), and cast(x, x.dtype) -> x. Seed 004's redundant casts.
Fusion fold_casts(const Fusion& f);

// Merges nodes with the same op, operands and attributes (constants included).
Fusion eliminate_common_subexpressions(const Fusion& f);

// Drops nodes whose outputs no output depends on.
Fusion eliminate_dead_code(const Fusion& f);

}  // namespace solder
