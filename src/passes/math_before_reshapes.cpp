#include "passes/math_before_reshapes.h"

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "passes/passes.h"
#include "passes/rebuild.h"
#include "passes/sort_commutative.h"
#include "passes/view_roots.h"

namespace solder {

namespace {

// Element nodes cloned at a kept shape for one node's operands (a cast of a weight, its scale).
constexpr int kMaxCone = 16;

// Output dims [ob, oe) of a reshape whose sizes multiply to those of its input's dims [ib, ie).
struct Run {
  size_t ob, oe, ib, ie;
  bool operator==(const Run&) const = default;
};

// The runs a reshape from `in` to `out` regroups dims into, or nothing: size-1 dims are runs of
// their own, symbolic dims must meet one for one, constant ones multiply to equal products.
std::optional<std::vector<Run>> regroup(const Shape& in, const Shape& out) {
  std::vector<Run> runs;
  size_t i = 0, j = 0;
  while (i < in.size() || j < out.size()) {
    if (j < out.size() && out[j].is_one()) {
      runs.push_back({j, j + 1, i, i});
      ++j;
    } else if (i < in.size() && in[i].is_one()) {
      runs.push_back({j, j, i, i + 1});
      ++i;
    } else if (i == in.size() || j == out.size()) {
      return std::nullopt;
    } else if (in[i] == out[j]) {
      runs.push_back({j, j + 1, i, i + 1});
      ++i, ++j;
    } else {
      const size_t i0 = i, j0 = j;
      std::optional<int64_t> pi = in[i++].const_value(), po = out[j++].const_value();
      while (pi && po && *pi != *po) {
        std::optional<int64_t>& less = *pi < *po ? pi : po;
        const Shape& s = *pi < *po ? in : out;
        size_t& k = *pi < *po ? i : j;
        if (k == s.size()) return std::nullopt;
        const std::optional<int64_t> d = s[k++].const_value();
        less = d ? std::optional<int64_t>(*less * *d) : std::nullopt;
      }
      if (!pi || !po) return std::nullopt;
      runs.push_back({j0, j, i0, i});
    }
  }
  return runs;
}

// A value at the reshape's input shape standing for an old value at the output shape.
struct Kept {
  int id;  // in the new fusion
  Shape shape;
  std::vector<Run> runs;
};

// A computed value's reshape: element math or a reduction made the value (a view's reshape is a
// view already; a matmul's result and a cat's are in memory).
bool heads_a_chain(const Fusion& f, const Node& n) {
  if (n.op != Op::Reshape) return false;
  const int p = f.value(n.in[0]).producer;
  if (p < 0) return false;
  const Op op = f.nodes()[p].op;
  return is_element_op(op) || op_info(op).kind == OpKind::Reduction;
}

// Operand v of an element node whose result has shape `out`, at the kept shape: its dims along
// each run all 1, or (a run that splits one dim) that dim whole. Empty where it is neither.
std::optional<Shape> kept_shape(const Shape& v, const Shape& out, const Kept& k) {
  const size_t lead = out.size() - v.size();
  auto at = [&](size_t d) { return d < lead ? Dim(1) : v[d - lead]; };
  Shape s;
  for (const Run& r : k.runs) {
    bool ones = true, whole = true;
    for (size_t d = r.ob; d < r.oe; ++d) ones &= at(d).is_one(), whole &= at(d) == out[d];
    if (ones) {
      s.insert(s.end(), r.ie - r.ib, Dim(1));
    } else if (whole && r.oe - r.ob == 1) {
      s.insert(s.end(), k.shape.begin() + static_cast<long>(r.ib), k.shape.begin() + static_cast<long>(r.ie));
    } else {
      return std::nullopt;
    }
  }
  return s;
}

}  // namespace

Fusion math_before_reshapes(const Fusion& f) {
  bool any = false;
  for (const Node& n : f.nodes()) any |= heads_a_chain(f, n);
  if (!any) return f;

  Rebuilder rb(f);
  bool moved = false;
  std::map<int, Kept> kept;                    // old value -> the value at its source's shape
  // (old operand, the anchor's shape and runs) -> the operand there: views and cloned math.
  std::map<std::pair<int, std::string>, int> cloned;
  auto materialize = [&](int old) {
    if (rb.remap[old] < 0) {
      Attrs a;
      a.shape = f.value(old).shape;
      rb.remap[old] = rb.dst.add(Op::Reshape, std::vector<int>{kept.at(old).id}, a)[0];
    }
    return rb.remap[old];
  };
  auto shape_key = [](const Shape& s) {
    std::string key;
    for (const Dim& d : s) key += d.str() + ",";
    return key;
  };
  auto runs_key = [](const std::vector<Run>& runs) {
    std::string key;
    for (const Run& r : runs) key += ";" + std::to_string(r.ob) + "-" + std::to_string(r.oe) + ":" + std::to_string(r.ib);
    return key;
  };

  for (const Node& n : f.nodes()) {
    if (heads_a_chain(f, n)) {
      // The source: its value at an earlier reshape's source shape where the math that made it
      // moved there (the reshapes compose), else as it is.
      const auto it = kept.find(n.in[0]);
      const Shape& from = it != kept.end() ? it->second.shape : f.value(n.in[0]).shape;
      if (auto runs = regroup(from, f.value(n.out[0]).shape)) {
        kept[n.out[0]] = Kept{it != kept.end() ? it->second.id : rb.mapped(n.in[0]), from, *runs};
        continue;
      }
    }
    if (is_element_op(n.op)) {
      const Shape& out = f.value(n.out[0]).shape;
      const Kept* anchor = nullptr;
      for (int x : n.in)
        if (auto it = kept.find(x); it != kept.end() && f.value(x).shape == out) {
          anchor = &it->second;
          break;
        }
      std::vector<int> in;
      if (anchor) {
        const std::string key = shape_key(anchor->shape) + runs_key(anchor->runs);
        int budget = kMaxCone;
        // x at the anchor's shape: a value kept there, a view of memory reshaped (a view too),
        // or element math over those cloned there; -1 where x is none of them.
        std::function<int(int)> at_kept = [&](int x) -> int {
          if (auto it = kept.find(x); it != kept.end() && f.value(x).shape == out && it->second.shape == anchor->shape &&
                                      it->second.runs == anchor->runs)
            return it->second.id;
          if (auto it = cloned.find({x, key}); it != cloned.end()) return it->second;
          int id = -1;
          const int p = f.value(x).producer;
          if (memory_rooted(f, x)) {
            const std::optional<Shape> s = kept_shape(f.value(x).shape, out, *anchor);
            if (!s) return -1;
            if (*s == f.value(x).shape || f.value(x).shape.empty()) return rb.mapped(x);
            Attrs a;
            a.shape = *s;
            id = rb.dst.add(Op::Reshape, std::vector<int>{rb.mapped(x)}, a)[0];
          } else if (p >= 0 && is_element_op(f.nodes()[p].op) && !kept.count(x) &&
                     (f.value(x).shape.empty() || kept_shape(f.value(x).shape, out, *anchor) == f.value(x).shape)) {
            return rb.mapped(x);  // a shape that broadcasts there as it is (a scalar's math)
          } else if (p >= 0 && is_element_op(f.nodes()[p].op) && !kept.count(x) && budget-- > 0) {
            std::vector<int> ops;
            for (int y : f.nodes()[p].in) {
              ops.push_back(at_kept(y));
              if (ops.back() < 0) return -1;
            }
            id = rb.dst.add(f.nodes()[p].op, ops, f.nodes()[p].attrs)[0];
          } else {
            return -1;
          }
          return cloned[{x, key}] = id;
        };
        for (int x : n.in) {
          const int id = at_kept(x);
          if (id < 0) break;
          in.push_back(id);
        }
      }
      if (anchor && in.size() == n.in.size()) {
        moved = true;
        const Kept k = *anchor;
        kept[n.out[0]] = Kept{rb.dst.add(n.op, in, n.attrs)[0], k.shape, k.runs};
        continue;
      }
    }
    for (int x : n.in)
      if (kept.count(x)) materialize(x);
    const auto outs = rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  for (int o : f.outputs())
    if (kept.count(o)) materialize(o);
  // The moved math's operands changed shapes, and cloned math may repeat a node or leave its
  // original unread: as the passes before this one would have left the graph.
  Fusion out = rb.finish();
  return moved ? eliminate_dead_code(eliminate_common_subexpressions(sort_commutative_operands(out))) : out;
}

}  // namespace solder
