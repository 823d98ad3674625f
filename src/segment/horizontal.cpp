#include "segment/horizontal.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>

namespace solder {

namespace {

// Beyond this many members the parameter block of one launch is full anyway (exec splits a
// group by bytes), and each trial costs a walk of the DAG.
constexpr size_t kMaxMembers = 128;

bool is_constant(const Fusion& f, int v) {
  const int p = f.value(v).producer;
  return p >= 0 && f.nodes()[p].op == Op::Constant;
}

// A kernel that may stack with others: not a constant's one-node writer (a view reads it).
bool candidate(const Fusion& f, const Segment& s) {
  if (s.kind != SegmentKind::Kernel || s.category == KernelCategory::Outer) return false;
  // Kernels that read windows or pads (a cat's pieces) index their own domain: not stacked.
  if (reads_pads_or_windows(f, s)) return false;
  return std::any_of(s.nodes.begin(), s.nodes.end(), [&](int n) { return f.nodes()[n].op != Op::Constant; });
}

// The contracted DAG: node rep[i] for segment i. False where an edge stays inside one node
// (a path between two members) or Kahn's walk cannot order every node (a cycle).
bool contracted_acyclic(const std::vector<std::vector<int>>& pred, const std::vector<int>& rep) {
  const size_t n = pred.size();
  std::vector<std::set<int>> succ(n);
  std::vector<int> indeg(n, 0);
  for (size_t s = 0; s < n; ++s)
    for (int p : pred[s]) {
      if (rep[p] == rep[s]) return false;
      if (succ[rep[p]].insert(rep[s]).second) ++indeg[rep[s]];
    }
  std::vector<int> ready;
  size_t nodes = 0, done = 0;
  for (size_t i = 0; i < n; ++i)
    if (rep[i] == static_cast<int>(i)) {
      ++nodes;
      if (!indeg[i]) ready.push_back(static_cast<int>(i));
    }
  while (!ready.empty()) {
    const int u = ready.back();
    ready.pop_back();
    ++done;
    for (int v : succ[u])
      if (--indeg[v] == 0) ready.push_back(v);
  }
  return done == nodes;
}

// Segments reachable from `from` along the DAG (successors), `from` excluded.
std::vector<char> reachable(const std::vector<std::vector<int>>& pred, int from) {
  const size_t n = pred.size();
  std::vector<std::vector<int>> succ(n);
  for (size_t s = 0; s < n; ++s)
    for (int p : pred[s]) succ[p].push_back(static_cast<int>(s));
  std::vector<char> seen(n, 0);
  std::vector<int> stack{from};
  while (!stack.empty()) {
    const int u = stack.back();
    stack.pop_back();
    for (int v : succ[u])
      if (!seen[v]) seen[v] = 1, stack.push_back(v);
  }
  return seen;
}

// Why candidate c cannot join the group of `members`: a member on a path from it (+1), it on a
// path from a member (-1), or neither (0: a cycle through another group); and that member.
std::pair<int, int> refusal(const std::vector<std::vector<int>>& pred, int c, const std::vector<int>& members) {
  const std::vector<char> down = reachable(pred, c);
  for (int m : members) {
    if (down[m]) return {+1, m};
    if (reachable(pred, m)[c]) return {-1, m};
  }
  return {0, -1};
}

// A topological order of the contracted DAG that takes, among the ready nodes, the one whose
// first member comes first in the given order; a group's members in their given order.
std::vector<int> contracted_order(const std::vector<std::vector<int>>& pred, const std::vector<int>& rep) {
  const size_t n = pred.size();
  std::vector<std::set<int>> succ(n);
  std::vector<int> indeg(n, 0);
  std::map<int, std::vector<int>> members;
  for (size_t s = 0; s < n; ++s) {
    members[rep[s]].push_back(static_cast<int>(s));
    for (int p : pred[s])
      if (succ[rep[p]].insert(rep[s]).second) ++indeg[rep[s]];
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;  // rep = its first member
  for (const auto& [r, ms] : members)
    if (!indeg[r]) ready.push(r);
  std::vector<int> order;
  while (!ready.empty()) {
    const int u = ready.top();
    ready.pop();
    for (int s : members[u]) order.push_back(s);
    for (int v : succ[u])
      if (--indeg[v] == 0) ready.push(v);
  }
  return order;
}

std::string member_list(const std::vector<int>& ms) {
  std::string r;
  for (size_t i = 0; i < ms.size(); ++i) r += (i ? ", " : "") + std::to_string(ms[i]);
  return r;
}

}  // namespace

std::vector<std::vector<int>> segment_predecessors(const SegmentedFusion& sf) {
  const Fusion& f = sf.fusion;
  std::vector<int> made_by(f.values().size(), -1);
  for (size_t si = 0; si < sf.segments.size(); ++si)
    for (int ni : sf.segments[si].nodes)
      for (int o : f.nodes()[ni].out) made_by[o] = static_cast<int>(si);
  std::vector<std::vector<int>> pred(sf.segments.size());
  for (size_t si = 0; si < sf.segments.size(); ++si) {
    std::set<int> ps;
    for (int v : sf.segments[si].inputs)
      if (made_by[v] >= 0 && made_by[v] != static_cast<int>(si)) ps.insert(made_by[v]);
    pred[si].assign(ps.begin(), ps.end());
  }
  return pred;
}

bool same_structure(const Fusion& f, const Segment& a, const Segment& b) {
  if (a.kind != SegmentKind::Kernel || b.kind != SegmentKind::Kernel || a.category != b.category ||
      a.domain.size() != b.domain.size() || a.reduce_axes != b.reduce_axes || a.nodes.size() != b.nodes.size() ||
      a.inputs.size() != b.inputs.size() || a.outputs.size() != b.outputs.size())
    return false;
  std::map<int, int> fwd, back;  // a's values <-> b's, one to one
  auto pair = [&](int x, int y) {
    const Value &vx = f.value(x), &vy = f.value(y);
    if (vx.dtype != vy.dtype || vx.rank() != vy.rank()) return false;
    auto [i, fresh_i] = fwd.emplace(x, y);
    auto [j, fresh_j] = back.emplace(y, x);
    return i->second == y && j->second == x;
  };
  for (size_t k = 0; k < a.nodes.size(); ++k) {
    const Node &na = f.nodes()[a.nodes[k]], &nb = f.nodes()[b.nodes[k]];
    if (na.op != nb.op || !(na.attrs == nb.attrs) || na.in.size() != nb.in.size() || na.out.size() != nb.out.size())
      return false;
    for (size_t i = 0; i < na.in.size(); ++i) {
      const int x = na.in[i], y = nb.in[i];
      if (is_constant(f, x) || is_constant(f, y)) {  // inlined: equal constants
        if (!is_constant(f, x) || !is_constant(f, y) ||
            !(f.nodes()[f.value(x).producer].attrs == f.nodes()[f.value(y).producer].attrs) ||
            f.value(x).dtype != f.value(y).dtype)
          return false;
        continue;
      }
      if (!pair(x, y)) return false;
    }
    for (size_t o = 0; o < na.out.size(); ++o)
      if (!pair(na.out[o], nb.out[o])) return false;
  }
  for (size_t k = 0; k < a.outputs.size(); ++k)
    if (fwd.count(a.outputs[k]) == 0 || fwd[a.outputs[k]] != b.outputs[k]) return false;
  return true;
}

void group_independent_segments(SegmentedFusion& sf) {
  const Fusion& f = sf.fusion;
  const size_t n = sf.segments.size();
  const std::vector<std::vector<int>> pred = segment_predecessors(sf);
  std::vector<int> rep(n);
  for (size_t i = 0; i < n; ++i) rep[i] = static_cast<int>(i);
  std::vector<char> taken(n, 0);
  std::vector<std::vector<int>> groups;
  struct Refused {
    int seg;
    std::vector<int> members;
    std::pair<int, int> why;
  };
  std::vector<Refused> refused;
  // Greedy, in order: each candidate not yet grouped starts a group and takes every later
  // candidate of its structure that keeps the contracted DAG acyclic.
  for (size_t i = 0; i < n; ++i) {
    if (taken[i] || !candidate(f, sf.segments[i])) continue;
    std::vector<int> members{static_cast<int>(i)};
    for (size_t j = i + 1; j < n && members.size() < kMaxMembers; ++j) {
      if (taken[j] || !candidate(f, sf.segments[j]) || !same_structure(f, sf.segments[i], sf.segments[j])) continue;
      std::vector<int> trial = rep;
      trial[j] = static_cast<int>(i);
      if (contracted_acyclic(pred, trial)) {
        rep = std::move(trial);
        members.push_back(static_cast<int>(j));
        taken[j] = 1;
      } else {
        refused.push_back({static_cast<int>(j), members, refusal(pred, static_cast<int>(j), members)});
      }
    }
    if (members.size() > 1) groups.push_back(std::move(members));
  }
  if (groups.empty() && refused.empty()) return;
  // Members contiguous: renumber the segments in the contracted DAG's order (every trial was
  // checked acyclic, so the order holds every segment).
  const std::vector<int> order = contracted_order(pred, rep);
  std::vector<int> new_index(n);
  for (size_t k = 0; k < n; ++k) new_index[order[k]] = static_cast<int>(k);
  std::vector<Segment> segs;
  for (int old : order) segs.push_back(std::move(sf.segments[old]));
  sf.segments = std::move(segs);
  for (Refused& r : refused) {
    for (int& m : r.members) m = new_index[m];
    const std::string other = r.why.second >= 0 ? std::to_string(new_index[r.why.second]) : "";
    sf.group_notes.push_back("segment " + std::to_string(new_index[r.seg]) + " not stacked with segments " +
                             member_list(r.members) + " (one kernel structure): " +
                             (r.why.first > 0   ? "segment " + other + " depends on it"
                              : r.why.first < 0 ? "it depends on segment " + other
                                                : "stacking would order two groups both ways (a cycle through other segments)"));
  }
  for (auto& ms : groups) {
    for (int& m : ms) m = new_index[m];
    std::sort(ms.begin(), ms.end());
    SegmentGroup g;
    g.members = ms;
    const Segment& first = sf.segments[ms.front()];
    g.why = std::to_string(ms.size()) + " " + kernel_category_name(first.category) +
            " kernels of one structure, no path between any two";
    for (int m : ms) sf.segments[m].group = static_cast<int>(sf.groups.size());
    sf.groups.push_back(std::move(g));
  }
}

}  // namespace solder
