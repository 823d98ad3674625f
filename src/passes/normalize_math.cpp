#include "passes/normalize_math.h"

#include <optional>

#include "passes/rebuild.h"

namespace solder {

namespace {
// The node producing `id` when it is `op`, else nullptr.
const Node* produced_by(const Fusion& f, int id, Op op) {
  const Value& v = f.value(id);
  if (v.producer < 0) return nullptr;
  const Node& n = f.nodes()[v.producer];
  return n.op == op ? &n : nullptr;
}

bool is_constant(const Fusion& f, int id, double value) {
  const Node* c = produced_by(f, id, Op::Constant);
  return c && c->attrs.value == value;
}

// True when `small` stretches along some dim of `big` (a statistic broadcast over a row).
bool broadcast_into(const Shape& small, const Shape& big) {
  if (small.size() < big.size()) return true;
  for (size_t i = 0; i < small.size(); ++i)
    if (small[i].is_one() && !big[i].is_one()) return true;
  return false;
}

struct Ctx {
  Rebuilder& rb;
  std::vector<char> statistic;  // old value id -> derives from a reduction
  int add(Op op, std::vector<int> in) { return rb.dst.add(op, in, Attrs{})[0]; }
  int m(int old) const { return rb.mapped(old); }
};

// One rule: the new id replacing `n`'s output, or nothing when the rule does not apply.
using Rule = std::optional<int> (*)(const Fusion&, const Node&, Ctx&);

std::optional<int> square(const Fusion& f, const Node& n, Ctx& c) {
  if (n.op != Op::Pow || !is_constant(f, n.in[1], 2)) return std::nullopt;
  return c.add(Op::Mul, {c.m(n.in[0]), c.m(n.in[0])});
}

std::optional<int> reciprocal_sqrt(const Fusion& f, const Node& n, Ctx& c) {
  if (f.value(n.out[0]).dtype != DType::F32) return std::nullopt;
  const int root = n.op == Op::Reciprocal ? n.in[0] : n.op == Op::Div && is_constant(f, n.in[0], 1) ? n.in[1] : -1;
  if (root < 0) return std::nullopt;
  const Node* s = produced_by(f, root, Op::Sqrt);
  if (!s || !c.statistic[s->in[0]]) return std::nullopt;
  return c.add(Op::Rsqrt, {c.m(s->in[0])});
}

std::optional<int> divide_by_root(const Fusion& f, const Node& n, Ctx& c) {
  if (n.op != Op::Div || f.value(n.out[0]).dtype != DType::F32) return std::nullopt;
  const Node* s = produced_by(f, n.in[1], Op::Sqrt);
  if (!s || !c.statistic[s->in[0]] || !broadcast_into(f.value(n.in[1]).shape, f.value(n.out[0]).shape))
    return std::nullopt;
  int r = c.add(Op::Rsqrt, {c.m(s->in[0])});
  return c.add(Op::Mul, {c.m(n.in[0]), r});
}

constexpr Rule kRules[] = {square, reciprocal_sqrt, divide_by_root};
}  // namespace

Fusion normalize_math(const Fusion& f) {
  Rebuilder rb(f);
  Ctx c{rb, std::vector<char>(f.values().size(), 0)};
  for (const Node& n : f.nodes()) {
    bool stat = op_info(n.op).kind == OpKind::Reduction;
    for (int x : n.in) stat |= c.statistic[x] != 0;
    for (int o : n.out) c.statistic[o] = stat;
    std::optional<int> hit;
    for (Rule r : kRules)
      if ((hit = r(f, n, c))) break;
    if (hit) {
      rb.remap[n.out[0]] = *hit;
      continue;
    }
    auto outs = rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  return rb.finish();
}

}  // namespace solder
