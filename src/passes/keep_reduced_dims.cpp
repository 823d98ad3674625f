#include "passes/keep_reduced_dims.h"

#include <map>

#include "passes/rebuild.h"

namespace solder {

namespace {

bool is_constant(const Fusion& f, int v) {
  const int p = f.value(v).producer;
  return p >= 0 && f.nodes()[p].op == Op::Constant;
}

// The one non-constant operand of an element node, or -1.
int single_operand(const Fusion& f, const Node& n) {
  if (!is_element_op(n.op)) return -1;
  int operand = -1;
  for (int x : n.in) {
    if (is_constant(f, x)) continue;
    if (operand >= 0) return -1;
    operand = x;
  }
  return operand;
}

// A partial reduction without keepdim.
bool drops_dims(const Fusion& f, const Node& n) {
  return op_info(n.op).kind == OpKind::Reduction && !n.attrs.keepdim && !n.attrs.axes.empty() &&
         n.attrs.axes.size() < f.value(n.in[0]).shape.size();
}

// A reshape that only drops size-1 dims of a computed value (split_gapped_reductions' outputs
// without keepdim): the math after it may run before it just as well.
bool squeezes(const Fusion& f, const Node& n) {
  if (n.op != Op::Reshape || f.value(n.in[0]).producer < 0) return false;
  const Node& p = f.nodes()[f.value(n.in[0]).producer];
  if (op_info(p.op).kind == OpKind::View || p.op == Op::Constant) return false;
  const Shape &in = f.value(n.in[0]).shape, &out = f.value(n.out[0]).shape;
  size_t j = 0;
  for (const Dim& d : in) {
    if (j < out.size() && d == out[j]) ++j;
    else if (!d.is_one()) return false;
  }
  return j == out.size() && in.size() > out.size();
}

}  // namespace

Fusion keep_reduced_dims(const Fusion& f) {
  // Values that are element math of one operand on a dims-dropping reduction's result.
  std::vector<int> reader_count(f.values().size(), 0);
  std::vector<char> chain(f.values().size(), 0);  // a result, or math of one on a result
  std::vector<char> keep(f.nodes().size(), 0);     // reductions to rewrite
  for (size_t i = 0; i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    if (drops_dims(f, n) || squeezes(f, n))
      for (int o : n.out) chain[o] = 1;
    const int x = single_operand(f, n);
    if (x >= 0 && chain[x]) {
      chain[n.out[0]] = 1;
      keep[f.value(x).producer] = 1;  // marks the chain's head (a reduction) or a link
    }
  }
  bool any = false;
  for (size_t i = 0; i < f.nodes().size(); ++i) any |= keep[i] && (drops_dims(f, f.nodes()[i]) || squeezes(f, f.nodes()[i]));
  if (!any) return f;

  Rebuilder rb(f);
  std::map<int, int> kept;  // old value -> its new value at the kept shape
  auto squeezed = [&](int old) {
    if (rb.remap[old] < 0) {
      Attrs a;
      a.shape = f.value(old).shape;
      rb.remap[old] = rb.dst.add(Op::Reshape, std::vector<int>{kept.at(old)}, a)[0];
    }
    return rb.remap[old];
  };
  for (size_t i = 0; i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    const int x = single_operand(f, n);
    if (drops_dims(f, n) && keep[i]) {
      Attrs a = n.attrs;
      a.keepdim = true;
      std::vector<int> in;
      for (int v : n.in) in.push_back(rb.mapped(v));
      const auto outs = rb.dst.add(n.op, in, a);
      for (size_t k = 0; k < outs.size(); ++k) kept[n.out[k]] = outs[k];
      continue;
    }
    if (squeezes(f, n) && keep[i]) {  // its input is the value at the kept shape
      kept[n.out[0]] = rb.mapped(n.in[0]);
      continue;
    }
    if (x >= 0 && kept.count(x)) {
      std::vector<int> in;
      for (int v : n.in) in.push_back(v == x ? kept.at(x) : rb.mapped(v));
      kept[n.out[0]] = rb.dst.add(n.op, in, n.attrs)[0];
      continue;
    }
    for (int v : n.in)
      if (kept.count(v)) squeezed(v);
    const auto outs = rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  for (int o : f.outputs())
    if (kept.count(o)) squeezed(o);
  return rb.finish();
}

}  // namespace solder
