// The C++ builder functions: thin wrappers over Fusion::add, which validates and promotes.
#include <cmath>

#include "solder/error.h"
#include "solder/fusion.h"

namespace solder {

namespace {
Tensor one(Op op, const std::vector<Tensor>& in, const Attrs& a = {}) {
  if (in.empty()) throw Error(std::string(op_name(op)) + ": no operands");
  return in[0].fusion().add(op, in, a)[0];
}

// A C++ double becomes a "wrapped number": integer-valued constants next to integer tensors
// stay integral (like Python's `2`); anything else is a float constant (like `2.0`).
Tensor wrap(const Tensor& like, double v) {
  DType t = like.dtype();
  DType ct;
  if (is_floating(t)) ct = t;
  else if (std::nearbyint(v) == v && t != DType::Bool) ct = t;
  else ct = DType::F32;
  return constant(like.fusion(), v, ct);
}
}  // namespace

Tensor constant(Fusion& f, double v, DType t) {
  Attrs a;
  a.value = v;
  a.dtype = t;
  return f.add(Op::Constant, std::vector<Tensor>{}, a)[0];
}

#define SOLDER_DEFINE_UNARY(fn, op) \
  Tensor fn(const Tensor& x) { return one(Op::op, {x}); }
SOLDER_DEFINE_UNARY(neg, Neg) SOLDER_DEFINE_UNARY(abs, Abs) SOLDER_DEFINE_UNARY(exp, Exp)
SOLDER_DEFINE_UNARY(log, Log) SOLDER_DEFINE_UNARY(sqrt, Sqrt) SOLDER_DEFINE_UNARY(rsqrt, Rsqrt)
SOLDER_DEFINE_UNARY(reciprocal, Reciprocal) SOLDER_DEFINE_UNARY(tanh, Tanh)
SOLDER_DEFINE_UNARY(sigmoid, Sigmoid) SOLDER_DEFINE_UNARY(erf, Erf) SOLDER_DEFINE_UNARY(sin, Sin)
SOLDER_DEFINE_UNARY(cos, Cos) SOLDER_DEFINE_UNARY(relu, Relu) SOLDER_DEFINE_UNARY(gelu, Gelu)
SOLDER_DEFINE_UNARY(gelu_tanh, GeluTanh) SOLDER_DEFINE_UNARY(silu, Silu)
SOLDER_DEFINE_UNARY(logical_not, LogicalNot)
SOLDER_DEFINE_UNARY(log1p, Log1p) SOLDER_DEFINE_UNARY(expm1, Expm1) SOLDER_DEFINE_UNARY(floor, Floor)
SOLDER_DEFINE_UNARY(ceil, Ceil) SOLDER_DEFINE_UNARY(trunc, Trunc) SOLDER_DEFINE_UNARY(round, Round)
#undef SOLDER_DEFINE_UNARY

#define SOLDER_DEFINE_BINARY(fn, op)                                                    \
  Tensor fn(const Tensor& a, const Tensor& b) { return one(Op::op, {a, b}); }           \
  Tensor fn(const Tensor& a, double b) { return one(Op::op, {a, wrap(a, b)}); }         \
  Tensor fn(double a, const Tensor& b) { return one(Op::op, {wrap(b, a), b}); }
SOLDER_DEFINE_BINARY(add, Add) SOLDER_DEFINE_BINARY(sub, Sub) SOLDER_DEFINE_BINARY(mul, Mul)
SOLDER_DEFINE_BINARY(div, Div) SOLDER_DEFINE_BINARY(pow, Pow)
SOLDER_DEFINE_BINARY(maximum, Maximum) SOLDER_DEFINE_BINARY(minimum, Minimum)
SOLDER_DEFINE_BINARY(eq, Eq) SOLDER_DEFINE_BINARY(ne, Ne) SOLDER_DEFINE_BINARY(lt, Lt)
SOLDER_DEFINE_BINARY(le, Le) SOLDER_DEFINE_BINARY(gt, Gt) SOLDER_DEFINE_BINARY(ge, Ge)
SOLDER_DEFINE_BINARY(logical_and, LogicalAnd) SOLDER_DEFINE_BINARY(logical_or, LogicalOr)
#undef SOLDER_DEFINE_BINARY

Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) { return one(Op::Where, {c, a, b}); }

Tensor clamp(const Tensor& x, double lo, double hi) {
  Attrs a;
  a.lo = lo;
  a.hi = hi;
  return one(Op::Clamp, {x}, a);
}

Tensor cast(const Tensor& x, DType t) {
  if (x.dtype() == t) return x;
  Attrs a;
  a.dtype = t;
  return one(Op::Cast, {x}, a);
}

namespace {
Tensor reduce(Op op, const Tensor& x, std::vector<int64_t> axes, bool keepdim) {
  Attrs a;
  a.axes = std::move(axes);
  a.keepdim = keepdim;
  return one(op, {x}, a);
}
}  // namespace

Tensor sum(const Tensor& x, std::vector<int64_t> axes, bool keepdim) { return reduce(Op::Sum, x, std::move(axes), keepdim); }
Tensor max(const Tensor& x, std::vector<int64_t> axes, bool keepdim) { return reduce(Op::Max, x, std::move(axes), keepdim); }
Tensor min(const Tensor& x, std::vector<int64_t> axes, bool keepdim) { return reduce(Op::Min, x, std::move(axes), keepdim); }
Tensor mean(const Tensor& x, std::vector<int64_t> axes, bool keepdim) { return reduce(Op::Mean, x, std::move(axes), keepdim); }

VarMean var_mean(const Tensor& x, std::vector<int64_t> axes, int64_t correction, bool keepdim) {
  Attrs a;
  a.axes = std::move(axes);
  a.keepdim = keepdim;
  a.correction = correction;
  auto outs = x.fusion().add(Op::VarMean, {x}, a);
  return {outs[0], outs[1]};
}

Tensor var(const Tensor& x, std::vector<int64_t> axes, int64_t correction, bool keepdim) {
  return var_mean(x, std::move(axes), correction, keepdim).var;
}

Tensor expand(const Tensor& x, Shape shape) {
  Attrs a;
  a.shape = std::move(shape);
  return one(Op::Expand, {x}, a);
}

Tensor reshape(const Tensor& x, Shape shape) {
  Attrs a;
  a.shape = std::move(shape);
  return one(Op::Reshape, {x}, a);
}

Tensor permute(const Tensor& x, std::vector<int64_t> dims) {
  Attrs a;
  a.axes = std::move(dims);
  return one(Op::Permute, {x}, a);
}

Tensor transpose(const Tensor& x, int64_t d0, int64_t d1) {
  int64_t r = x.rank();
  auto norm = [&](int64_t d) {
    if (d < -r || d >= r)
      throw Error("transpose(" + x.describe() + "): dim " + std::to_string(d) + " is out of range");
    return d < 0 ? d + r : d;
  };
  std::vector<int64_t> p(r);
  for (int64_t i = 0; i < r; ++i) p[i] = i;
  std::swap(p[norm(d0)], p[norm(d1)]);
  return permute(x, p);
}

Tensor squeeze(const Tensor& x, std::vector<int64_t> axes) {
  Attrs a;
  a.axes = std::move(axes);
  return one(Op::Squeeze, {x}, a);
}

Tensor unsqueeze(const Tensor& x, int64_t axis) {
  Attrs a;
  a.axis = axis;
  return one(Op::Unsqueeze, {x}, a);
}

Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t end, int64_t step) {
  Attrs a;
  a.axis = axis;
  a.start = start;
  a.end = end;
  a.step = step;
  return one(Op::Slice, {x}, a);
}

Tensor select(const Tensor& x, int64_t axis, int64_t index) {
  int64_t end = index == -1 ? kSliceToEnd : index + 1;
  return squeeze(slice(x, axis, index, end), {axis});
}

Tensor pad(const Tensor& x, int64_t axis, int64_t before, int64_t after) {
  Attrs a;
  a.axis = axis;
  a.start = before;
  a.end = after;
  return one(Op::Pad, {x}, a);
}

Tensor pad(const Tensor& x, int64_t axis, const Dim& before, const Dim& after) {
  Attrs a;
  a.axis = axis;
  a.bound_start = before;
  a.bound_end = after;
  return one(Op::Pad, {x}, a);
}

Tensor cat(const std::vector<Tensor>& xs, int64_t axis) {
  Attrs a;
  a.axis = axis;
  return one(Op::Cat, xs, a);
}

Tensor matmul(const Tensor& a, const Tensor& b) { return one(Op::Matmul, {a, b}); }

Tensor linear(const Tensor& x, const Tensor& w, std::optional<Tensor> bias) {
  if (bias) return one(Op::Linear, {x, w, *bias});
  return one(Op::Linear, {x, w});
}

}  // namespace solder
