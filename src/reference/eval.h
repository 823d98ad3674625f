#pragma once
// One evaluator per op family. Each takes its operands as dense buffers plus the node's output
// shapes (evaluated from the symbolic IR shapes with the run's bindings) and returns the
// outputs, rounded to their dtypes.
#include <vector>

#include "reference/buffer.h"
#include "solder/fusion.h"

namespace solder::ref {

struct OutSpec {
  Sizes shape;
  DType dtype;
};

// Source, unary, binary, compare, logical, ternary, clamp and cast ops.
Buf eval_elementwise(const Node& n, const std::vector<const Buf*>& in, const OutSpec& out);
// sum/max/min/mean (one output) and var_mean (var, mean).
std::vector<Buf> eval_reduce(const Node& n, const Buf& in, const std::vector<OutSpec>& out);
// expand/reshape/permute/squeeze/unsqueeze/slice and cat.
Buf eval_view(const Node& n, const std::vector<const Buf*>& in, const OutSpec& out);
// matmul and linear, accumulating in double.
Buf eval_matmul(const Node& n, const std::vector<const Buf*>& in, const OutSpec& out);

}  // namespace solder::ref
