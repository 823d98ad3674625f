#pragma once
// Operand validation and output type/shape inference, one rule per op kind.
#include <utility>
#include <vector>

#include "solder/fusion.h"

namespace solder {

struct Inferred {
  DType dtype;
  Shape shape;
};

// Validates `in` for `op`, normalizes `attrs` (negative axes, empty axis lists) in place and
// returns the outputs' types. Throws solder::Error naming the op and operands.
std::vector<Inferred> infer(const Fusion& f, Op op, const std::vector<int>& in, Attrs& attrs);

// Broadcast of two shapes (right-aligned). Throws with `what` in the message on mismatch.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what);

}  // namespace solder
