#include "passes/narrow_unary_math.h"

#include "passes/rebuild.h"

namespace solder {

namespace {
bool narrows(Op op) {
  const OpInfo& i = op_info(op);
  return i.kind == OpKind::Unary && op != Op::Cast && op != Op::Clamp && op != Op::LogicalNot;
}

bool low_precision(DType t) { return t == DType::F16 || t == DType::BF16; }

// The x of cast(u(cast(x, f32)), t) when node `n` is that outer cast and u(...) has no other
// reader; else -1. Writes u's op.
int narrowable(const Fusion& f, const Node& n, const std::vector<int>& uses, Op& u) {
  if (n.op != Op::Cast || !low_precision(n.attrs.dtype)) return -1;
  const Value& r = f.value(n.in[0]);
  if (r.dtype != DType::F32 || r.producer < 0 || uses[n.in[0]] != 1) return -1;
  const Node& un = f.nodes()[r.producer];
  if (!narrows(un.op)) return -1;
  const Value& w = f.value(un.in[0]);
  if (w.producer < 0) return -1;
  const Node& widen = f.nodes()[w.producer];
  if (widen.op != Op::Cast || f.value(widen.in[0]).dtype != n.attrs.dtype) return -1;
  u = un.op;
  return widen.in[0];
}
}  // namespace

Fusion narrow_unary_math(const Fusion& f) {
  std::vector<int> uses(f.values().size(), 0);
  for (const Node& n : f.nodes())
    for (int x : n.in) ++uses[x];
  for (int o : f.outputs()) ++uses[o];
  Rebuilder rb(f);
  for (const Node& n : f.nodes()) {
    Op u;
    if (int x = narrowable(f, n, uses, u); x >= 0) {
      rb.remap[n.out[0]] = rb.dst.add(u, std::vector<int>{rb.mapped(x)}, Attrs{})[0];
      continue;
    }
    auto outs = rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  return rb.finish();
}

}  // namespace solder
