#include "schedule/stages.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace solder {

StagePlan plan_stages(const Fusion& f, const Segment& s, const KernelShape& ks, bool persistent) {
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
      p.steps.push_back({ni, n.op, false, n.in[0], st + 1});
      if (n.op == Op::VarMean) {
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
      uint32_t row_mask = (1u << ks.split) - 1;
      bool spans_rows = (ks.span[v] & row_mask) != 0;
      if (p.stage[v] < q && spans_rows) {  // would need a second read of memory: keep it
        mat[v] = q;
        return;
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

int narrow_source(const Fusion& f, int v) {
  auto narrow = [&](int x) { return f.value(x).dtype == DType::F16 || f.value(x).dtype == DType::BF16; };
  if (narrow(v)) return v;
  const Value& val = f.value(v);
  if (val.dtype != DType::F32 || val.producer < 0) return -1;
  const Node& n = f.nodes()[val.producer];
  return n.op == Op::Cast && narrow(n.in[0]) ? n.in[0] : -1;
}

}  // namespace solder
