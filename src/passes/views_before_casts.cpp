#include "passes/views_before_casts.h"

#include "passes/rebuild.h"

namespace solder {

Fusion views_before_casts(const Fusion& f) {
  Rebuilder rb(f);
  // New-fusion value id -> it is an input or a view of one (through views only).
  std::vector<char> input_rooted;
  auto rooted = [&](int id) { return id < static_cast<int>(input_rooted.size()) && input_rooted[id]; };
  auto mark = [&](int id, bool on) {
    if (id >= static_cast<int>(input_rooted.size())) input_rooted.resize(id + 1, 0);
    input_rooted[id] = on;
  };
  for (int id : f.inputs()) mark(rb.mapped(id), true);
  for (const Node& n : f.nodes()) {
    if (op_info(n.op).kind == OpKind::View) {
      const int x = rb.mapped(n.in[0]);
      const int p = rb.dst.value(x).producer;
      if (p >= 0 && rb.dst.nodes()[p].op == Op::Cast && rooted(rb.dst.nodes()[p].in[0])) {
        const Node cast = rb.dst.nodes()[p];  // a copy: add() below grows the node list
        const int v = rb.dst.add(n.op, std::vector<int>{cast.in[0]}, n.attrs)[0];
        mark(v, true);
        rb.remap[n.out[0]] = rb.dst.add(Op::Cast, std::vector<int>{v}, cast.attrs)[0];
        continue;
      }
    }
    auto outs = rb.emit(n);
    const bool view = op_info(n.op).kind == OpKind::View && rooted(rb.mapped(n.in[0]));
    for (size_t k = 0; k < outs.size(); ++k) {
      rb.remap[n.out[k]] = outs[k];
      mark(outs[k], view);
    }
  }
  return rb.finish();
}

}  // namespace solder
