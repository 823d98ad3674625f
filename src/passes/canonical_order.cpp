#include "passes/canonical_order.h"

#include <utility>

#include "passes/rebuild.h"

namespace solder {

namespace {
// Node indices in post-order from the outputs. Iterative: programs of thousands of nodes must
// not overflow the stack. Each frame is a node and the index of its next operand to visit.
std::vector<int> post_order(const Fusion& f) {
  std::vector<int> order;
  std::vector<char> placed(f.nodes().size(), 0);
  std::vector<std::pair<int, size_t>> stack;
  auto visit = [&](int value) {
    const int p = f.value(value).producer;
    if (p >= 0 && !placed[p]) stack.push_back({p, 0});
  };
  for (int o : f.outputs()) {
    visit(o);
    while (!stack.empty()) {
      const int node = stack.back().first;
      const Node& n = f.nodes()[node];
      if (placed[node]) {  // reached through two operands before it was placed
        stack.pop_back();
      } else if (stack.back().second < n.in.size()) {
        visit(n.in[stack.back().second++]);
      } else {
        placed[node] = 1;
        order.push_back(node);
        stack.pop_back();
      }
    }
  }
  return order;
}
}  // namespace

Fusion canonical_node_order(const Fusion& f) {
  const std::vector<int> order = post_order(f);
  // Views of inputs (through views only) go first: a view between two element ops ends a
  // kernel segment, so silu(x[:, :H]) * x[:, H:] would otherwise become two kernels.
  std::vector<char> input_view(f.values().size(), 0);
  for (int id : f.inputs()) input_view[id] = 1;
  std::vector<int> views, rest;
  for (int node : order) {
    const Node& n = f.nodes()[node];
    bool hoist = op_info(n.op).kind == OpKind::View && input_view[n.in[0]];
    for (int o : n.out) input_view[o] = hoist;
    (hoist ? views : rest).push_back(node);
  }
  Rebuilder rb(f);
  for (const auto* part : {&views, &rest})
    for (int node : *part) {
      const Node& n = f.nodes()[node];
      auto outs = rb.emit(n);
      for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
    }
  return rb.finish();
}

}  // namespace solder
