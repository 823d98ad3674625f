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
}  // namespace

Buf eval_elementwise(const Node& n, const std::vector<const Buf*>& in, const OutSpec& out) {
  Buf r{out.shape, {}};
  const OpKind kind = op_info(n.op).kind;
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
