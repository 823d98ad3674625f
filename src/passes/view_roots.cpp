#include "passes/view_roots.h"

namespace solder {

bool memory_rooted(const Fusion& f, int v) {
  for (;;) {
    const int p = f.value(v).producer;
    if (p < 0) return true;
    const Node& n = f.nodes()[p];
    if (n.op == Op::Constant || op_info(n.op).kind == OpKind::Matmul) return true;
    if (op_info(n.op).kind != OpKind::View || n.op == Op::Pad) return false;
    v = n.in[0];
  }
}

int constant_root(const Fusion& f, int v) {
  for (;;) {
    const int p = f.value(v).producer;
    if (p < 0) return -1;
    const Node& n = f.nodes()[p];
    if (n.op == Op::Constant) return v;
    if (op_info(n.op).kind != OpKind::View || n.op == Op::Pad) return -1;
    v = n.in[0];
  }
}

}  // namespace solder
