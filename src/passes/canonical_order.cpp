#include "passes/canonical_order.h"

#include <utility>

#include "passes/rebuild.h"

namespace solder {

Fusion canonical_node_order(const Fusion& f) {
  Rebuilder rb(f);
  std::vector<char> placed(f.nodes().size(), 0);
  // Iterative post-order (programs of thousands of nodes must not overflow the stack):
  // each frame is a node and the index of its next operand to visit.
  std::vector<std::pair<int, size_t>> stack;
  auto visit = [&](int value) {
    if (f.value(value).producer >= 0 && !placed[f.value(value).producer]) stack.push_back({f.value(value).producer, 0});
  };
  for (int o : f.outputs()) {
    visit(o);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const Node& n = f.nodes()[node];
      if (placed[node]) {  // reached twice through two operands before it was placed
        stack.pop_back();
        continue;
      }
      if (next < n.in.size()) {
        visit(n.in[next++]);
        continue;
      }
      placed[node] = 1;
      auto outs = rb.emit(n);
      for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
      stack.pop_back();
    }
  }
  return rb.finish();
}

}  // namespace solder
