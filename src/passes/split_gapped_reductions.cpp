#include "passes/split_gapped_reductions.h"

#include <algorithm>

#include "passes/rebuild.h"

namespace solder {

namespace {

constexpr int64_t kMinTrailingRun = 32;

// The sorted reduced axes of `n` and its input's rank.
std::vector<int64_t> reduced_axes(const Fusion& f, const Node& n) {
  const int64_t rank = static_cast<int64_t>(f.value(n.in[0]).shape.size());
  std::vector<int64_t> a;
  for (int64_t x : n.attrs.axes) a.push_back(x < 0 ? x + rank : x);
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  return a;
}

// The trailing run of reduced axes where `n` reduces the innermost axis and keeps an axis (not
// of size 1) below it; else empty.
std::vector<int64_t> trailing_run(const Fusion& f, const Node& n) {
  if (op_info(n.op).kind != OpKind::Reduction || n.attrs.axes.empty()) return {};
  const Shape& s = f.value(n.in[0]).shape;
  const int64_t rank = static_cast<int64_t>(s.size());
  const std::vector<int64_t> a = reduced_axes(f, n);
  if (a.empty() || a.back() != rank - 1) return {};
  std::vector<int64_t> run = {rank - 1};
  for (size_t i = a.size() - 1; i > 0 && a[i - 1] == a[i] - 1; --i) run.insert(run.begin(), a[i - 1]);
  bool gap = false;  // a kept axis of more than one element between reduced ones
  for (int64_t d = a.front() + 1; d < run.front(); ++d)
    gap |= !std::binary_search(a.begin(), a.end(), d) && !s[d].is_one();
  if (!gap) return {};
  int64_t known = 1;
  for (int64_t d : run) {
    const auto c = s[d].const_value();
    if (!c) return run;  // a symbolic run: sizes that name a dim are rarely tiny
    known *= *c;
  }
  return known >= kMinTrailingRun ? run : std::vector<int64_t>{};
}

}  // namespace

Fusion split_gapped_reductions(const Fusion& f) {
  bool any = false;
  for (const Node& n : f.nodes()) any |= !trailing_run(f, n).empty();
  if (!any) return f;

  Rebuilder rb(f);
  auto constant = [&](double v, DType t) {
    Attrs a;
    a.value = v;
    a.dtype = t;
    return rb.dst.add(Op::Constant, std::vector<int>{}, a)[0];
  };
  auto cast = [&](int v, DType t) {
    if (rb.dst.value(v).dtype == t) return v;
    Attrs a;
    a.dtype = t;
    return rb.dst.add(Op::Cast, std::vector<int>{v}, a)[0];
  };
  auto reduce = [&](Op op, int v, const std::vector<int64_t>& axes, bool keepdim, int64_t correction = 0) {
    Attrs a;
    a.axes = axes;
    a.keepdim = keepdim;
    a.correction = correction;
    return rb.dst.add(op, std::vector<int>{v}, a);
  };
  auto binary = [&](Op op, int a, int b) { return rb.dst.add(op, std::vector<int>{a, b}, Attrs{})[0]; };

  for (const Node& n : f.nodes()) {
    const std::vector<int64_t> run = trailing_run(f, n);
    if (run.empty()) {
      const auto outs = rb.emit(n);
      for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
      continue;
    }
    const std::vector<int64_t> all = reduced_axes(f, n);
    const bool keep = n.attrs.keepdim;
    const int x = rb.mapped(n.in[0]);
    const DType t = rb.dst.value(x).dtype;
    if (n.op == Op::Max || n.op == Op::Min) {
      const int p = reduce(n.op, x, run, true)[0];
      rb.remap[n.out[0]] = reduce(n.op, p, all, keep)[0];
      continue;
    }
    // Narrow floats in f32 (one rounding at the end, as one reduction); f32, f64 and integer
    // sums as they are (integer sums stay exact).
    const bool narrow = is_floating(t) && dtype_size(t) < 4;
    const int xf = narrow ? cast(x, DType::F32) : x;
    const DType ft = rb.dst.value(xf).dtype;
    if (n.op == Op::Sum || n.op == Op::Mean) {
      const int p = reduce(n.op, xf, run, true)[0];
      rb.remap[n.out[0]] = cast(reduce(n.op, p, all, keep)[0], f.value(n.out[0]).dtype);
      continue;
    }
    // var_mean: the population variance over all is the mean of the partial variances plus the
    // variance of the partial means (equal counts); a correction c scales it by N / (N - c).
    // The combination runs at the kept shape (in the second step's kernel), reshaped after.
    const auto p = reduce(Op::VarMean, xf, run, true);
    const auto spread = reduce(Op::VarMean, p[1], all, true);
    int var = binary(Op::Add, reduce(Op::Mean, p[0], all, true)[0], spread[0]);
    if (n.attrs.correction != 0) {
      // x * 0 + 1 counts the elements in the first step's kernel (a non-finite x makes the
      // variance NaN, as it is).
      const int one = binary(Op::Add, binary(Op::Mul, xf, constant(0.0, ft)), constant(1.0, ft));
      const int count = reduce(Op::Sum, reduce(Op::Sum, one, run, true)[0], all, true)[0];
      const int less = binary(Op::Sub, count, constant(static_cast<double>(n.attrs.correction), ft));
      var = binary(Op::Mul, var, binary(Op::Div, count, less));
    }
    const int outs[2] = {cast(var, f.value(n.out[0]).dtype), cast(spread[1], f.value(n.out[1]).dtype)};
    for (int k = 0; k < 2; ++k) {
      Attrs a;
      a.shape = f.value(n.out[k]).shape;
      rb.remap[n.out[k]] = keep ? outs[k] : rb.dst.add(Op::Reshape, std::vector<int>{outs[k]}, a)[0];
    }
  }
  return rb.finish();
}

}  // namespace solder
