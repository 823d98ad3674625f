#pragma once
#include "solder/fusion.h"

namespace solder {

// Puts the operands of commutative ops in one canonical order, so `a + b` and `b + a` are one
// node (and CSE, run next, merges them). Order: non-constants before constants, then higher
// rank, then more non-broadcast dims (the full tensor before a row statistic or a weight), then
// a structural hash of the operand's expression (input positions, ops, attributes: not names
// nor node order). The examples already follow it: add(x, bias), mul(centered, rstd), add(var, eps).
// Exact: add, mul, eq, ne, logical_and/or commute bit for bit; lt(a, b) becomes gt(b, a) and
// le/ge likewise. maximum/minimum keep their order: with +0 and -0 the result's sign of zero
// depends on it (the reference returns the first).
Fusion sort_commutative_operands(const Fusion& f);

}  // namespace solder
