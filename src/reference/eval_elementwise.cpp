// Elementwise ops in double, matching PyTorch's definitions; the result is rounded once to the
// output dtype (as the GPU rounds each op's f32 result once).
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/eval.h"
#include "reference/parallel.h"
#include "solder/error.h"
#include "solder/host_tensor.h"

namespace solder::ref {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double unary(Op op, double x, const Attrs& a) {
  switch (op) {
    case Op::Neg: return -x;
    case Op::Abs: return std::fabs(x);
    case Op::Exp: return std::exp(x);
    case Op::Log: return std::log(x);
    case Op::Sqrt: return std::sqrt(x);
    case Op::Rsqrt: return 1.0 / std::sqrt(x);
    case Op::Reciprocal: return 1.0 / x;
    case Op::Tanh: return std::tanh(x);
    case Op::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case Op::Erf: return std::erf(x);
    case Op::Sin: return std::sin(x);
    case Op::Cos: return std::cos(x);
    case Op::Relu: return std::isnan(x) ? x : (x > 0 ? x : 0.0);
    case Op::Gelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Op::GeluTanh: {
      const double k = std::sqrt(2.0 / 3.14159265358979323846);
      return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    }
    case Op::Silu: return x / (1.0 + std::exp(-x));
    case Op::LogicalNot: return x == 0 ? 1.0 : 0.0;
    case Op::Log1p: return std::log1p(x);
    case Op::Expm1: return std::expm1(x);
    // Integers' values are whole already: these give them back (torch keeps integer dtypes).
    case Op::Floor: return std::floor(x);
    case Op::Ceil: return std::ceil(x);
    case Op::Trunc: return std::trunc(x);
    case Op::Round: return std::nearbyint(x);  // halves to even, as torch.round
    case Op::Clamp: return std::isnan(x) ? x : std::min(std::max(x, a.lo), a.hi);
    case Op::Cast: return x;  // the rounding to the target dtype is the whole op
    default: break;
  }
  throw Error(std::string("reference: ") + op_name(op) + " is not a unary op");
}

double binary(Op op, double x, double y) {
  switch (op) {
    case Op::Add: return x + y;
    case Op::Sub: return x - y;
    case Op::Mul: return x * y;
    case Op::Div: return x / y;
    case Op::Pow: return std::pow(x, y);
    case Op::Maximum: return std::isnan(x) || std::isnan(y) ? kNaN : std::max(x, y);
    case Op::Minimum: return std::isnan(x) || std::isnan(y) ? kNaN : std::min(x, y);
    case Op::Eq: return x == y;
    case Op::Ne: return x != y;
    case Op::Lt: return x < y;
    case Op::Le: return x <= y;
    case Op::Gt: return x > y;
    case Op::Ge: return x >= y;
    case Op::LogicalAnd: return x != 0 && y != 0;
    case Op::LogicalOr: return x != 0 || y != 0;
    default: break;
  }
  throw Error(std::string("reference: ") + op_name(op) + " is not a binary op");
}
// Ops that read or make integers, exactly: i32 and i64 arithmetic wraps at the dtype's width
// as torch's does (int32 max + 1 is int32 min), and i64 never passes through a double.
int64_t int_unary(Op op, DType t, int64_t x, const Attrs& a) {
  const auto u = static_cast<uint64_t>(x);
  switch (op) {
    case Op::Neg: return wrap_int(t, 0 - u);
    case Op::Abs: return x < 0 ? wrap_int(t, 0 - u) : x;
    case Op::Relu: return x > 0 ? x : 0;
    case Op::Floor: case Op::Ceil: case Op::Trunc: case Op::Round: return x;  // whole already
    case Op::Clamp: {
      double d = static_cast<double>(x);
      if (d < a.lo) return trunc_int(std::ceil(a.lo));
      if (d > a.hi) return trunc_int(std::floor(a.hi));
      return x;
    }
    default: break;
  }
  throw Error(std::string("reference: ") + op_name(op) + " on integers");
}

int64_t int_binary(Op op, DType t, int64_t x, int64_t y) {
  const auto ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  switch (op) {
    case Op::Add: return wrap_int(t, ux + uy);
    case Op::Sub: return wrap_int(t, ux - uy);
    case Op::Mul: return wrap_int(t, ux * uy);
    case Op::Maximum: return std::max(x, y);
    case Op::Minimum: return std::min(x, y);
    default: break;
  }
  throw Error(std::string("reference: ") + op_name(op) + " on integers");
}

double int_compare(Op op, int64_t x, int64_t y) {
  switch (op) {
    case Op::Eq: return x == y;
    case Op::Ne: return x != y;
    case Op::Lt: return x < y;
    case Op::Le: return x <= y;
    case Op::Gt: return x > y;
    case Op::Ge: return x >= y;
    default: break;
  }
  throw Error(std::string("reference: ") + op_name(op) + " is not a comparison");
}

// A cast's or a constant's integer result: from an integer, wrapped; from a float, truncated
// toward zero and clamped to the target's range (what the GPU's conversion does).
int64_t to_target_int(DType t, const Buf& src, int64_t i) {
  if (holds_int(src.dtype)) return wrap_int(t, static_cast<uint64_t>(bits_int(src.data[i])));
  int64_t v = trunc_int(src.data[i]);
  return t == DType::I32 ? std::clamp<int64_t>(v, INT32_MIN, INT32_MAX) : v;
}

// Elementwise ops where an operand or the result is an integer; false when none is.
bool eval_integers(const Node& n, const std::vector<const Buf*>& in, const OutSpec& out, Buf& r) {
  const OpKind kind = op_info(n.op).kind;
  bool any = holds_int(out.dtype);
  for (const Buf* b : in) any = any || holds_int(b->dtype);
  if (!any) return false;
  if (kind == OpKind::Source) {
    Buf c{{}, {n.attrs.value}, DType::F64};
    r.data = {int_bits(to_target_int(out.dtype, c, 0))};
    return true;
  }
  const int64_t count = numel(out.shape);
  // Operands broadcast to the result's shape, keeping their representation and dtype.
  std::vector<Buf> ops;
  for (const Buf* b : in) ops.push_back(Buf{out.shape, b->shape == out.shape ? b->data : broadcast_to(*b, out.shape), b->dtype});
  r.data.resize(static_cast<size_t>(count));
  const DType t = out.dtype;
  const bool int_out = holds_int(t);
  auto nonzero = [&](const Buf& b, int64_t i) { return holds_int(b.dtype) ? bits_int(b.data[i]) != 0 : b.data[i] != 0; };
  parallel_for(count, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      double& y = r.data[i];
      switch (kind) {
        case OpKind::Unary:
          if (n.op == Op::Cast) y = int_out ? int_bits(to_target_int(t, ops[0], i)) : round_to(t, value_at(ops[0], i));
          else if (n.op == Op::LogicalNot) y = nonzero(ops[0], i) ? 0.0 : 1.0;
          else y = int_bits(int_unary(n.op, t, int_at(ops[0], i), n.attrs));
          break;
        case OpKind::Binary: y = int_bits(int_binary(n.op, t, int_at(ops[0], i), int_at(ops[1], i))); break;
        case OpKind::Compare: y = int_compare(n.op, int_at(ops[0], i), int_at(ops[1], i)); break;
        case OpKind::Logical:
          y = n.op == Op::LogicalAnd ? nonzero(ops[0], i) && nonzero(ops[1], i) : nonzero(ops[0], i) || nonzero(ops[1], i);
          break;
        case OpKind::Ternary: {  // branches share the result's dtype: copy the held value
          const Buf& pick = nonzero(ops[0], i) ? ops[1] : ops[2];
          y = int_out ? int_bits(int_at(pick, i)) : round_to(t, value_at(pick, i));
          break;
        }
        default: throw Error(std::string("reference: ") + op_name(n.op) + " on integers");
      }
    }
  });
  return true;
}
}  // namespace

Buf eval_elementwise(const Node& n, const std::vector<const Buf*>& in, const OutSpec& out) {
  Buf r{out.shape, {}};
  if (eval_integers(n, in, out, r)) return r;
  const OpKind kind = op_info(n.op).kind;
  if (n.op == Op::Window) {  // true where the index along the axis is in [start, end)
    const int64_t axis = n.attrs.axis;
    int64_t inner = 1;
    for (size_t d = axis + 1; d < out.shape.size(); ++d) inner *= out.shape[d];
    r.data.resize(static_cast<size_t>(numel(out.shape)));
    for (size_t i = 0; i < r.data.size(); ++i) {
      const int64_t at = static_cast<int64_t>(i) / inner % out.shape[axis];
      r.data[i] = at >= n.attrs.start && at < n.attrs.end ? 1.0 : 0.0;
    }
    return r;
  }
  if (kind == OpKind::Source) {
    r.data = {n.attrs.value};
    round_all(r.data, out.dtype);
    return r;
  }
  // Operands of the result's shape are read in place; broadcast ones through a dense copy.
  Doubles s0, s1, s2;
  const int64_t count = numel(out.shape);
  r.data.resize(static_cast<size_t>(count));
  double* y = r.data.data();
  if (kind == OpKind::Unary) {
    const double* x = broadcast_view(*in.at(0), out.shape, s0);
    parallel_for(count, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = unary(n.op, x[i], n.attrs);
    });
  } else if (kind == OpKind::Ternary) {
    const double *c = broadcast_view(*in.at(0), out.shape, s0), *a = broadcast_view(*in.at(1), out.shape, s1),
                 *b = broadcast_view(*in.at(2), out.shape, s2);
    parallel_for(count, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = c[i] != 0 ? a[i] : b[i];
    });
  } else {
    const double *a = broadcast_view(*in.at(0), out.shape, s0), *b = broadcast_view(*in.at(1), out.shape, s1);
    parallel_for(count, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = binary(n.op, a[i], b[i]);
    });
  }
  round_all(r.data, out.dtype);
  return r;
}

}  // namespace solder::ref
