#include "passes/small_matmuls.h"

#include <algorithm>
#include <vector>

#include "passes/rebuild.h"

namespace solder {

namespace {

// K's factors where `v`, a matmul operand, is a reshape merging them into its contracted dim
// (dim `k_at` from the end: 1 for a, 2 for b) and nothing else: [..., k1, .., kr] -> [..., K]
// for a, [..., k1, .., kr, N] -> [..., K, N] for b (an einsum's flattening, a copy where the
// factors' strides do not merge). Empty otherwise.
std::vector<int64_t> merged_k(const Fusion& f, int v, size_t k_at) {
  const Value& val = f.value(v);
  if (val.producer < 0 || f.nodes()[val.producer].op != Op::Reshape || val.shape.size() < 2) return {};
  const Shape& src = f.value(f.nodes()[val.producer].in[0]).shape;
  const size_t r = val.shape.size(), before = r - k_at;  // dims ahead of K
  if (src.size() <= r) return {};
  const size_t factors = src.size() - r + 1;
  for (size_t d = 0; d < before; ++d)
    if (!(src[d] == val.shape[d])) return {};
  for (size_t d = before + 1; d < r; ++d)
    if (!(src[d + factors - 1] == val.shape[d])) return {};
  std::vector<int64_t> k;
  for (size_t d = before; d < before + factors; ++d) {
    const auto c = src[d].const_value();
    if (!c) return {};
    k.push_back(*c);
  }
  return k;
}

}  // namespace

bool matmul_as_reduction(DType t) { return t == DType::F64; }

Fusion small_matmuls_as_reductions(const Fusion& f) {
  auto picked = [&](const Node& n) {
    return op_info(n.op).kind == OpKind::Matmul && matmul_as_reduction(f.value(n.out[0]).dtype);
  };
  bool any = false;
  for (const Node& n : f.nodes()) any |= picked(n);
  if (!any) return f;

  Rebuilder rb(f);
  auto add = [&](Op op, std::vector<int> in, Attrs a = {}) { return rb.dst.add(op, in, a)[0]; };
  auto unsqueeze = [&](int v, int64_t axis) {
    Attrs a;
    a.axis = axis;
    return add(Op::Unsqueeze, {v}, a);
  };
  auto rank = [&](int v) { return static_cast<int64_t>(rb.dst.value(v).shape.size()); };

  for (const Node& n : f.nodes()) {
    if (!picked(n)) {
      const auto outs = rb.emit(n);
      for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
      continue;
    }
    int a = rb.mapped(n.in[0]), b = rb.mapped(n.in[1]);
    // The contracted dim as factors k1..kr (one but where an operand merged several): a as
    // [..., M, k...], b as [..., k..., N]. Where one operand's reshape merged the factors, it is
    // read from before that merge (a copy where their strides do not merge) and the other is
    // split to them (a split is always a view).
    std::vector<int64_t> ka, kb, k;
    if (n.op == Op::Matmul && rank(a) >= 2 && rank(b) >= 2) {
      ka = merged_k(f, n.in[0], 1);
      kb = merged_k(f, n.in[1], 2);
      k = ka.empty() ? kb : kb.empty() || ka == kb ? ka : std::vector<int64_t>{};
    }
    if (!k.empty()) {
      auto factored = [&](int v, int old, size_t k_at, bool merged) {
        if (merged) return rb.mapped(f.nodes()[f.value(old).producer].in[0]);
        const Shape& shape = rb.dst.value(v).shape;
        Attrs s;
        for (size_t d = 0; d < shape.size(); ++d)
          if (d + k_at == shape.size())
            for (int64_t x : k) s.shape.push_back(Dim(x));
          else
            s.shape.push_back(shape[d]);
        return add(Op::Reshape, {v}, s);
      };
      a = factored(a, n.in[0], 1, ka == k);
      b = factored(b, n.in[1], 2, kb == k);
    }
    const int64_t factors = std::max<size_t>(k.size(), 1);
    if (n.op == Op::Matmul) {
      if (rank(a) == 1) a = unsqueeze(a, 0);
      if (rank(b) == 1) b = unsqueeze(b, 1);
      // b: [..., k..., N] -> [..., 1, N, k...]
      const int64_t nb = rank(b), lead = nb - factors - 1;
      Attrs n_first;
      for (int64_t d = 0; d < lead; ++d) n_first.axes.push_back(d);
      n_first.axes.push_back(nb - 1);
      for (int64_t d = lead; d < nb - 1; ++d) n_first.axes.push_back(d);
      b = unsqueeze(add(Op::Permute, {b}, n_first), lead);
    }
    // [..., M, 1, k...] * [..., 1, N, k...] (a linear's w: [N, K]) broadcasts to
    // [..., M, N, k...]; the sum takes the k's.
    const int product = add(Op::Mul, {unsqueeze(a, rank(a) - factors), b});
    // With keepdim, so a linear's bias (as [N, 1]) adds in the reduction's kernel.
    Attrs over_k;
    for (int64_t d = rank(product) - factors; d < rank(product); ++d) over_k.axes.push_back(d);
    over_k.keepdim = true;
    int out = add(Op::Sum, {product}, over_k);
    if (n.in.size() == 3) out = add(Op::Add, {out, unsqueeze(rb.mapped(n.in[2]), 1)});
    const Shape& shape = f.value(n.out[0]).shape;  // K's dims (and a 1-D operand's) dropped
    if (!(rb.dst.value(out).shape == shape)) {
      Attrs s;
      s.shape = shape;
      out = add(Op::Reshape, {out}, s);
    }
    rb.remap[n.out[0]] = out;
  }
  return rb.finish();
}

}  // namespace solder
