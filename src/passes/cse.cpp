#include <cmath>
#include <map>
#include <tuple>

#include "passes/passes.h"
#include "passes/rebuild.h"

namespace solder {

Fusion eliminate_common_subexpressions(const Fusion& f) {
  Rebuilder rb(f);
  std::vector<std::pair<const Node*, std::vector<int>>> seen;  // (old node, new outputs)
  for (const Node& n : f.nodes()) {
    const std::vector<int>* hit = nullptr;
    for (const auto& [m, outs] : seen) {
      if (m->op != n.op || m->in.size() != n.in.size() || !(m->attrs == n.attrs)) continue;
      // Attrs compare values with ==, where 0 == -0; as constants they differ (1 / -0 = -inf).
      if (n.op == Op::Constant && std::signbit(m->attrs.value) != std::signbit(n.attrs.value)) continue;
      bool same = true;
      for (size_t i = 0; i < n.in.size() && same; ++i) same = rb.mapped(m->in[i]) == rb.mapped(n.in[i]);
      if (same) {
        hit = &outs;
        break;
      }
    }
    std::vector<int> outs = hit ? *hit : rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
    if (!hit) seen.emplace_back(&n, outs);
  }
  return rb.finish();
}

}  // namespace solder
