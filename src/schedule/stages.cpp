#include "schedule/stages.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace solder {

StagePlan plan_stages(const Fusion& f, const Segment& s, const KernelShape& ks, bool persistent, bool recompute) {
  const size_t nv = f.values().size();
  StagePlan p;
  p.stage.assign(nv, 0);
  p.in_kernel.assign(nv, 0);
  p.row_level.assign(nv, 0);
  const int rank = static_cast<int>(ks.dim_order.size());
  uint32_t col_mask = 0;
  for (int pos = ks.split; pos < rank; ++pos) col_mask |= 1u << pos;
  for (size_t v = 0; v < nv; ++v) p.row_level[v] = (ks.span[v] & col_mask) == 0;

  for (int ni : s.nodes) {
    const Node& n = f.nodes()[ni];
    int st = 0;
    for (int x : n.in) st = std::max(st, p.stage[x]);
    if (op_info(n.op).kind == OpKind::Reduction) {
      p.steps.push_back({ni, n.op, false, n.in[0], st + 1, n.op == Op::VarMean && !persistent});
      if (n.op == Op::VarMean && persistent) {
        p.steps.push_back({ni, n.op, true, n.in[0], st + 2});
        st += 2;
      } else {
        st += 1;
      }
      for (int o : n.out) p.row_level[o] = 1;  // reduced along every column dim
    }
    for (int o : n.out) {
      p.stage[o] = st;
      p.in_kernel[o] = 1;
    }
    p.max_level = std::max(p.max_level, st);
  }
  if (!persistent) return p;

  // Element values needed in pass q but produced in an earlier pass: keep them in registers.
  std::set<int> outs(s.outputs.begin(), s.outputs.end());
  std::map<int, int> mat;  // value -> last pass reading it
  const uint32_t row_mask = (1u << ks.split) - 1;
  auto spans_rows = [&](int v) { return (ks.span[v] & row_mask) != 0; };
  // With `recompute`, recomputed in pass q rather than held: a 32-bit value made by a few
  // element ops from one value that is held two to a register (an f16/bf16 input, or its
  // widening cast) and from row-level values. Softmax's exponentials so cost half a register
  // per element, not one: bf16 H=65536 then holds its row (1024 threads, the next row in
  // shared memory) instead of streaming it: 81.9 -> 93.9 % of a copy (H100, B=8192). Only
  // where nothing else is held: the exponentials again cost 3 points at 2048-8192.
  auto recomputable = [&](int v, int q) {
    if (!recompute || narrow_source(f, v) >= 0 || f.value(v).dtype != DType::F32) return false;
    std::set<int> leaves;
    int ops = 0;
    std::function<bool(int)> cone = [&](int x) {
      const Value& val = f.value(x);
      if (p.row_level[x] || !spans_rows(x)) return true;
      if (val.producer >= 0 && f.nodes()[val.producer].op == Op::Constant) return true;
      if (p.stage[x] >= q) return false;
      if (narrow_source(f, x) >= 0) {
        leaves.insert(x);
        return true;
      }
      if (!p.in_kernel[x] || !is_element_op(f.nodes()[val.producer].op) || ++ops > 4) return false;
      for (int y : f.nodes()[val.producer].in)
        if (!cone(y)) return false;
      return true;
    };
    return cone(v) && leaves.size() == 1;
  };
  for (int q = 1; q <= p.max_level; ++q) {
    std::vector<int> targets;
    for (const auto& st : p.steps)
      if (st.level == q + 1) targets.push_back(st.input);
    for (int o : s.outputs)
      if (!p.row_level[o] && p.stage[o] == q) targets.push_back(o);
    std::set<int> seen;
    std::function<void(int)> visit = [&](int v) {
      if (!seen.insert(v).second || p.row_level[v]) return;
      if (mat.count(v)) {
        mat[v] = q;
        return;
      }
      const Value& val = f.value(v);
      bool constant = val.producer >= 0 && f.nodes()[val.producer].op == Op::Constant;
      if (constant) return;
      if (p.stage[v] < q && spans_rows(v)) {  // would need a second read of memory: keep it
        if (!recomputable(v, q)) {
          mat[v] = q;
          return;
        }
      }
      if (!p.in_kernel[v]) return;  // an input varying only along columns: reload (cached)
      for (int x : f.nodes()[val.producer].in) visit(x);
    };
    for (int t : targets) visit(t);
  }
  for (auto [v, last] : mat) {
    p.materialized.push_back(v);
    p.last_pass.push_back(last);
  }
  return p;
}

std::vector<HeldCut> held_cuts(const Fusion& f, const Segment& s, const StagePlan& sp, const std::vector<int>& inputs) {
  std::map<int, std::vector<int>> consumers;  // value -> the segment's nodes reading it
  for (int ni : s.nodes)
    for (int x : f.nodes()[ni].in) consumers[x].push_back(ni);
  const std::set<int> outs(s.outputs.begin(), s.outputs.end());
  std::vector<HeldCut> cuts;
  for (int x : inputs) {
    HeldCut best;
    size_t best_cone = 0;
    for (int ni : s.nodes) {
      const Node& n = f.nodes()[ni];
      if (!is_element_op(n.op) || n.out.size() != 1) continue;
      const int v = n.out[0];
      if (sp.stage[v] != 0 || sp.row_level[v] || !is_floating(f.value(v).dtype) ||
          dtype_size(f.value(v).dtype) != dtype_size(f.value(x).dtype)) continue;
      // The values between x and v: each made by an element op from x, earlier cone values,
      // constants and stage-0 values constant along the reduced dims; no other input that varies
      // along them.
      std::set<int> cone;
      bool ok = true, reaches = false;
      std::function<void(int)> back = [&](int y) {
        if (!ok || cone.count(y)) return;
        if (y == x) {
          reaches = true;
          return;
        }
        const Value& val = f.value(y);
        if (val.producer >= 0 && f.nodes()[val.producer].op == Op::Constant) return;
        if (sp.row_level[y] && sp.stage[y] == 0) return;
        if (!sp.in_kernel[y] || sp.stage[y] != 0 || !is_element_op(f.nodes()[val.producer].op)) {
          ok = false;
          return;
        }
        cone.insert(y);
        for (int z : f.nodes()[val.producer].in) back(z);
      };
      back(v);
      if (!ok || !reaches) continue;
      cone.erase(v);
      cone.insert(x);
      // Nothing but v leaves the cone: every reader of a cone value makes a cone value or v.
      for (int y : cone) {
        if (outs.count(y)) ok = false;
        for (int c : consumers[y]) {
          const int o = f.nodes()[c].out[0];
          if (o != v && !cone.count(o)) ok = false;
        }
      }
      if (ok && cone.size() > best_cone) {
        best = {x, v};
        best_cone = cone.size();
      }
    }
    if (best.value >= 0) cuts.push_back(best);
  }
  return cuts;
}

int narrow_source(const Fusion& f, int v) {
  auto narrow = [&](int x) { return f.value(x).dtype == DType::F16 || f.value(x).dtype == DType::BF16; };
  if (narrow(v)) return v;
  const Value& val = f.value(v);
  if (val.dtype != DType::F32 || val.producer < 0) return -1;
  const Node& n = f.nodes()[val.producer];
  return n.op == Op::Cast && narrow(n.in[0]) ? n.in[0] : -1;
}

}  // namespace solder
