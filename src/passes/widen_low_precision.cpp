#include "passes/widen_low_precision.h"

#include "passes/rebuild.h"
#include "solder/host_tensor.h"

namespace solder {

namespace {
bool widened(Op op) { return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div; }
bool low_precision(DType t) { return t == DType::F16 || t == DType::BF16; }

Attrs dtype_attr(DType t) {
  Attrs a;
  a.dtype = t;
  return a;
}

// `old` (an f16/bf16 value) as f32 in the new fusion.
int as_f32(Rebuilder& rb, int old) {
  const Value& v = rb.src.value(old);
  if (v.producer >= 0) {
    const Node& p = rb.src.nodes()[v.producer];
    if (p.op == Op::Constant) {  // a literal of the rounded value, not a cast of a literal
      Attrs a = dtype_attr(DType::F32);
      a.value = round_to(v.dtype, p.attrs.value);
      return rb.dst.add(Op::Constant, std::vector<int>{}, a)[0];
    }
  }
  return rb.dst.add(Op::Cast, std::vector<int>{rb.mapped(old)}, dtype_attr(DType::F32))[0];
}
}  // namespace

Fusion widen_low_precision(const Fusion& f) {
  Rebuilder rb(f);
  for (const Node& n : f.nodes()) {
    const DType t = f.value(n.out[0]).dtype;
    if (widened(n.op) && low_precision(t)) {
      std::vector<int> in;
      for (int x : n.in) in.push_back(as_f32(rb, x));
      int r = rb.dst.add(n.op, in, n.attrs)[0];
      rb.remap[n.out[0]] = rb.dst.add(Op::Cast, std::vector<int>{r}, dtype_attr(t))[0];
      continue;
    }
    auto outs = rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  return rb.finish();
}

}  // namespace solder
