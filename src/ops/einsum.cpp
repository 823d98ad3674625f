#include "ops/einsum.h"

#include <algorithm>

#include "solder/error.h"

namespace solder {

namespace {

struct Equation {
  std::string a, b, out;
};

Equation parse_equation(const std::string& eq, const Tensor& x, const Tensor& y) {
  std::string s;
  for (char c : eq)
    if (c != ' ') s += c;
  auto fail = [&](const std::string& why) -> Equation { throw Error("einsum('" + eq + "'): " + why); };
  size_t comma = s.find(','), arrow = s.find("->");
  if (comma == std::string::npos) return fail("expected two operands");
  Equation e{s.substr(0, comma), s.substr(comma + 1, arrow == std::string::npos ? std::string::npos : arrow - comma - 1), ""};
  if (arrow != std::string::npos) {
    e.out = s.substr(arrow + 2);
  } else {
    for (char c : e.a + e.b)
      if (std::count(e.a.begin(), e.a.end(), c) + std::count(e.b.begin(), e.b.end(), c) == 1) e.out += c;
    std::sort(e.out.begin(), e.out.end());
  }
  if (static_cast<int>(e.a.size()) != x.rank() || static_cast<int>(e.b.size()) != y.rank())
    return fail("subscripts do not match the operands' ranks (" + x.describe() + ", " + y.describe() + ")");
  return e;
}

// Size of index `c` for the result: the operand's own size, or 1 where it is absent.
Dim size_of(const std::string& subs, const Tensor& t, char c) {
  size_t p = subs.find(c);
  return p == std::string::npos ? Dim(1) : t.shape()[p];
}

Tensor permute_if_needed(const Tensor& t, const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return permute(t, perm);
  return t;
}

Tensor reshape_if_needed(const Tensor& t, const Shape& s) { return t.shape() == s ? t : reshape(t, s); }

// Puts `t`'s axes (labelled by `subs`) in the order of `order`, inserting size-1 axes for
// labels it lacks.
Tensor align(const Tensor& t, const std::string& subs, const std::string& order) {
  std::vector<int64_t> perm;
  for (char c : order)
    if (subs.find(c) != std::string::npos) perm.push_back(static_cast<int64_t>(subs.find(c)));
  Tensor r = permute_if_needed(t, perm);
  for (size_t i = 0; i < order.size(); ++i)
    if (subs.find(order[i]) == std::string::npos) r = unsqueeze(r, static_cast<int64_t>(i));
  return r;
}

Dim product(const Tensor& t, const std::string& subs, const std::string& labels) {
  Dim d(1);
  for (char c : labels) d = d * size_of(subs, t, c);
  return d;
}

}  // namespace

Tensor einsum(const std::string& equation, const Tensor& a, const Tensor& b) {
  Equation e = parse_equation(equation, a, b);
  std::string batch, left, right, contracted;
  for (char c : e.a) {
    bool in_b = e.b.find(c) != std::string::npos, in_out = e.out.find(c) != std::string::npos;
    if (in_b && in_out) batch += c;
    else if (in_b) contracted += c;
    else if (in_out) left += c;
    else contracted += c;  // summed away within a
  }
  for (char c : e.b)
    if (e.a.find(c) == std::string::npos) (e.out.find(c) != std::string::npos ? right : contracted) += c;

  bool broadcasts = false;
  for (char c : batch + contracted)
    if (!(size_of(e.a, a, c) == size_of(e.b, b, c))) broadcasts = true;

  if (broadcasts) {
    // out[o...] = sum over contracted of a * b, with both aligned to [out..., contracted...];
    // f16/bf16 multiply and sum in f32, rounded once (as the matmul's GEMM accumulates).
    const DType t = a.dtype(), acc = is_floating(t) && dtype_size(t) < 4 ? DType::F32 : t;
    std::string order = e.out + contracted;
    Tensor lhs = align(t == acc ? a : cast(a, acc), e.a, order);  // sequenced: node order is part of the fusion's hash
    Tensor rhs = align(t == acc ? b : cast(b, acc), e.b, order);
    Tensor prod = lhs * rhs;
    std::vector<int64_t> axes;
    for (size_t i = e.out.size(); i < order.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    Tensor r = axes.empty() ? prod : sum(prod, axes);
    return t == acc ? r : cast(r, t);
  }

  // [batch..., L, K] @ [batch..., K, R] -> [batch..., L, R] -> [batch..., left..., right...].
  Shape bshape;
  for (char c : batch) bshape.push_back(size_of(e.a, a, c));
  auto flat = [&](const Tensor& t, const std::string& subs, const std::string& rows, const std::string& cols) {
    Shape s = bshape;
    s.push_back(product(t, subs, rows));
    s.push_back(product(t, subs, cols));
    return reshape_if_needed(align(t, subs, batch + rows + cols), s);
  };
  Tensor lhs = flat(a, e.a, left, contracted);
  Tensor rhs = flat(b, e.b, contracted, right);
  Tensor mm = matmul(lhs, rhs);
  Shape full = bshape;
  for (char c : left) full.push_back(size_of(e.a, a, c));
  for (char c : right) full.push_back(size_of(e.b, b, c));
  Tensor r = reshape_if_needed(mm, full);
  std::string have = batch + left + right;
  std::vector<int64_t> perm;
  for (char c : e.out) perm.push_back(static_cast<int64_t>(have.find(c)));
  return permute_if_needed(r, perm);
}

}  // namespace solder
