#include "passes/recognize_var_mean.h"

#include <map>
#include <tuple>

#include "passes/rebuild.h"

namespace solder {

namespace {
// The statistics of one (x, axes, keepdim): which nodes read them and the var_mean they share.
using Key = std::tuple<int, std::vector<int64_t>, bool>;
struct Stats {
  int64_t correction = -1;  // of the first var_mean or variance seen; -1: a mean alone, no rewrite
  int var = -1, mean = -1;  // the shared var_mean's outputs in the new fusion, once emitted
};

Key key_of(const Node& n) { return {n.in[0], n.attrs.axes, n.attrs.keepdim}; }

const Node* producer(const Fusion& f, int id) {
  const Value& v = f.value(id);
  return v.producer < 0 ? nullptr : &f.nodes()[v.producer];
}

// The mean of `m` when it is mean(x, A, *) or var_mean(x, A, *)'s mean; reads its x and axes.
bool is_mean_of(const Fusion& f, int m, int& x, std::vector<int64_t>& axes) {
  const Node* p = producer(f, m);
  if (!p || !((p->op == Op::Mean) || (p->op == Op::VarMean && p->out[1] == m))) return false;
  x = p->in[0];
  axes = p->attrs.axes;
  return true;
}

// For v = mean(mul(d, d), A, k) with d = sub(x, mean(x, A, *)): x; else -1.
int hand_written_variance(const Fusion& f, const Node& n) {
  if (n.op != Op::Mean) return -1;
  const DType t = f.value(n.out[0]).dtype;
  if (t != DType::F32 && t != DType::F64) return -1;
  const Node* sq = producer(f, n.in[0]);
  if (!sq || sq->op != Op::Mul || sq->in[0] != sq->in[1]) return -1;
  const Node* d = producer(f, sq->in[0]);
  if (!d || d->op != Op::Sub) return -1;
  int x = -1;
  std::vector<int64_t> axes;
  if (!is_mean_of(f, d->in[1], x, axes) || x != d->in[0] || axes != n.attrs.axes) return -1;
  if (!(f.value(x).shape == f.value(d->out[0]).shape)) return -1;  // the mean broadcasts into x, not back
  return x;
}
}  // namespace

Fusion recognize_var_mean(const Fusion& f) {
  // First pass: which statistics share a var_mean (emitted where the first of them is read).
  std::map<Key, Stats> stats;
  std::vector<int> variance_of(f.nodes().size(), -1);  // node -> x of a hand-written variance
  for (size_t i = 0; i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    if (n.op != Op::Mean && n.op != Op::VarMean) continue;
    variance_of[i] = hand_written_variance(f, n);
    Key k = variance_of[i] >= 0 ? Key{variance_of[i], n.attrs.axes, n.attrs.keepdim} : key_of(n);
    Stats& s = stats[k];
    if (s.correction < 0 && n.op == Op::VarMean) s.correction = n.attrs.correction;
    if (s.correction < 0 && variance_of[i] >= 0) s.correction = 0;
  }
  Rebuilder rb(f);
  for (size_t i = 0; i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    auto it = stats.end();
    if (n.op == Op::Mean || n.op == Op::VarMean)
      it = stats.find(variance_of[i] >= 0 ? Key{variance_of[i], n.attrs.axes, n.attrs.keepdim} : key_of(n));
    // A var_mean or variance of another correction keeps its own node; so does a lone mean.
    const int64_t c = it == stats.end() ? -1 : it->second.correction;
    const bool shared = c >= 0 && (n.op == Op::VarMean ? n.attrs.correction == c : variance_of[i] < 0 || c == 0);
    if (!shared) {
      auto outs = rb.emit(n);
      for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
      continue;
    }
    Stats& s = it->second;
    if (s.var < 0) {
      Attrs a;
      a.axes = std::get<1>(it->first);
      a.keepdim = std::get<2>(it->first);
      a.correction = s.correction;
      auto outs = rb.dst.add(Op::VarMean, std::vector<int>{rb.mapped(std::get<0>(it->first))}, a);
      s.var = outs[0];
      s.mean = outs[1];
    }
    if (n.op == Op::VarMean) {
      rb.remap[n.out[0]] = s.var;
      rb.remap[n.out[1]] = s.mean;
    } else {
      rb.remap[n.out[0]] = variance_of[i] >= 0 ? s.var : s.mean;
    }
  }
  return rb.finish();
}

}  // namespace solder
