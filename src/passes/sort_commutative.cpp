#include "passes/sort_commutative.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "passes/rebuild.h"

namespace solder {

namespace {
uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}
uint64_t mix(uint64_t h, double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return mix(h, bits);
}
uint64_t mix(uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = mix(h, static_cast<uint64_t>(c));
  return mix(h, static_cast<uint64_t>(s.size()));
}

uint64_t attrs_hash(const Attrs& a) {
  uint64_t h = mix(mix(mix(mix(0, a.value), static_cast<uint64_t>(a.dtype)), a.lo), a.hi);
  for (int64_t x : a.axes) h = mix(h, static_cast<uint64_t>(x));
  h = mix(mix(h, static_cast<uint64_t>(a.keepdim)), static_cast<uint64_t>(a.correction));
  h = mix(h, shape_str(a.shape));
  for (int64_t x : {a.axis, a.start, a.end, a.step}) h = mix(h, static_cast<uint64_t>(x));
  if (!a.bound_start.is_const() || !a.bound_end.is_const()) h = mix(h, a.bound_start.str() + ":" + a.bound_end.str());
  return h;
}

bool commutes(Op op) {
  return op == Op::Add || op == Op::Mul || op == Op::Eq || op == Op::Ne || op == Op::LogicalAnd || op == Op::LogicalOr;
}

// lt(a, b) == gt(b, a): the op that reads its operands swapped, or the op itself.
Op mirrored(Op op) {
  switch (op) {
    case Op::Lt: return Op::Gt;
    case Op::Gt: return Op::Lt;
    case Op::Le: return Op::Ge;
    case Op::Ge: return Op::Le;
    default: return op;
  }
}

struct Order {
  const Fusion& f;
  std::vector<uint64_t> hash;  // value id -> structural hash

  bool constant(int id) const {
    const Value& v = f.value(id);
    return v.producer >= 0 && f.nodes()[v.producer].op == Op::Constant;
  }
  auto key(int id) const {
    const Value& v = f.value(id);
    int full = 0;
    for (const Dim& d : v.shape) full += !d.is_one();
    return std::make_tuple(constant(id), -v.rank(), -full, hash[id]);
  }
  bool before(int a, int b) const { return key(a) < key(b); }
};
}  // namespace

Fusion sort_commutative_operands(const Fusion& f) {
  Order ord{f, std::vector<uint64_t>(f.values().size(), 0)};
  for (size_t i = 0; i < f.inputs().size(); ++i) {
    const Value& v = f.value(f.inputs()[i]);
    ord.hash[f.inputs()[i]] = mix(mix(mix(1, static_cast<uint64_t>(i)), static_cast<uint64_t>(v.dtype)), shape_str(v.shape));
  }
  Rebuilder rb(f);
  for (const Node& n : f.nodes()) {
    Node m = n;
    // Operands that tie (one expression) take the comparison's gt/ge spelling: lt(a, a) is gt(a, a).
    const bool tie = n.in.size() == 2 && !ord.before(n.in[0], n.in[1]) && !ord.before(n.in[1], n.in[0]);
    if (n.in.size() == 2 && (commutes(n.op) || mirrored(n.op) != n.op) &&
        (ord.before(n.in[1], n.in[0]) || (tie && (n.op == Op::Lt || n.op == Op::Le)))) {
      std::swap(m.in[0], m.in[1]);
      m.op = mirrored(n.op);
    }
    // The hash sees operands in canonical order, so it does not depend on how they were written.
    uint64_t h = mix(mix(2, static_cast<uint64_t>(m.op)), attrs_hash(m.attrs));
    for (int x : m.in) h = mix(h, ord.hash[x]);
    for (size_t k = 0; k < n.out.size(); ++k) ord.hash[n.out[k]] = mix(h, static_cast<uint64_t>(k));
    auto outs = rb.emit(m);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  return rb.finish();
}

}  // namespace solder
