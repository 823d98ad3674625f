#include "passes/passes.h"
#include "passes/rebuild.h"

namespace solder {

Fusion eliminate_dead_code(const Fusion& f) {
  std::vector<char> live(f.values().size(), 0);
  for (int o : f.outputs()) live[o] = 1;
  std::vector<char> keep(f.nodes().size(), 0);
  for (int i = static_cast<int>(f.nodes().size()) - 1; i >= 0; --i) {
    const Node& n = f.nodes()[i];
    for (int o : n.out) keep[i] |= live[o];
    if (keep[i])
      for (int x : n.in) live[x] = 1;
  }
  Rebuilder rb(f);
  for (size_t i = 0; i < f.nodes().size(); ++i) {
    if (!keep[i]) continue;
    const Node& n = f.nodes()[i];
    auto outs = rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  return rb.finish();
}

}  // namespace solder
