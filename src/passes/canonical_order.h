#pragma once
#include "solder/fusion.h"

namespace solder {

// Re-emits the nodes in one order that depends only on the graph: depth-first from the outputs
// (in output order), each node after its operands (in operand order, which
// sort_commutative_operands made canonical), except that views of inputs come first, since a
// view between element ops ends a kernel segment. Segmentation places nodes in order, so two
// programs that list the same nodes differently now segment alike. Nodes no output needs are
// dropped. The norm examples are already in this order.
Fusion canonical_node_order(const Fusion& f);

}  // namespace solder
