#include <cmath>
#include <map>
#include <tuple>

#include "passes/passes.h"
#include "passes/rebuild.h"

namespace solder {

Fusion eliminate_common_subexpressions(const Fusion& f) {
  Rebuilder rb(f);
  // Candidates keyed by (op, operands after remapping): one scan per node over its equals in
  // those, not over every node before it (a 20k-node program took seconds).
  using Key = std::pair<Op, std::vector<int>>;
  std::map<Key, std::vector<std::pair<const Node*, std::vector<int>>>> seen;  // -> (old node, new outputs)
  for (const Node& n : f.nodes()) {
    Key key{n.op, {}};
    for (int v : n.in) key.second.push_back(rb.mapped(v));
    auto& bucket = seen[key];
    const std::vector<int>* hit = nullptr;
    for (const auto& [m, outs] : bucket) {
      if (!(m->attrs == n.attrs)) continue;
      // Attrs compare values with ==, where 0 == -0; as constants they differ (1 / -0 = -inf).
      if (n.op == Op::Constant && std::signbit(m->attrs.value) != std::signbit(n.attrs.value)) continue;
      hit = &outs;
      break;
    }
    std::vector<int> outs = hit ? *hit : rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
    if (!hit) bucket.emplace_back(&n, outs);
  }
  return rb.finish();
}

}  // namespace solder
