#include "codegen/expr_emitter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "solder/error.h"
#include "solder/host_tensor.h"

namespace solder {

const char* storage_type(DType t) {
  switch (t) {
    case DType::Bool: case DType::F8E4M3: case DType::F8E5M2: return "u8";
    case DType::F16: case DType::BF16: return "u16";
    case DType::F32: return "float";
    case DType::F64: return "double";
    case DType::I32: return "int";
    case DType::I64: return "i64";
  }
  return "?";
}

const char* compute_type(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::F64: return "double";
    case DType::I32: return "int";
    case DType::I64: return "i64";
    default: return "float";
  }
}

std::string load_convert(DType t, const std::string& raw) {
  switch (t) {
    case DType::F16: return "f16_to_f(" + raw + ")";
    case DType::BF16: return "bf16_to_f(" + raw + ")";
    case DType::F8E4M3: return "e4m3_to_f(" + raw + ")";
    case DType::F8E5M2: return "e5m2_to_f(" + raw + ")";
    case DType::Bool: return "(" + raw + " != 0)";
    default: return raw;
  }
}

std::string store_convert(DType t, const std::string& v) {
  switch (t) {
    case DType::F16: return "f_to_f16(" + v + ")";
    case DType::BF16: return "f_to_bf16(" + v + ")";
    case DType::F8E4M3: return "f_to_e4m3(" + v + ")";
    case DType::F8E5M2: return "f_to_e5m2(" + v + ")";
    case DType::Bool: return "(u8)(" + v + ")";
    default: return v;
  }
}

std::string literal(DType t, double v) {
  char buf[64];
  if (t == DType::Bool) return v != 0 ? "true" : "false";
  if (t == DType::I32) return "(int)" + std::to_string(static_cast<long long>(v));
  if (t == DType::I64) return "(i64)" + std::to_string(static_cast<long long>(v)) + "LL";
  if (t == DType::F64) {
    if (std::isnan(v)) return "__longlong_as_double(0x7ff8000000000000LL)";
    if (std::isinf(v)) return v > 0 ? "__longlong_as_double(0x7ff0000000000000LL)" : "__longlong_as_double(0xfff0000000000000LL)";
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return std::string("(") + buf + ")";
  }
  // Float registers: the value rounded to its dtype, spelled by its bits (exact, and inf/nan safe).
  float x = static_cast<float>(round_to(t, v));
  unsigned bits;
  std::memcpy(&bits, &x, 4);
  std::snprintf(buf, sizeof buf, "__int_as_float(0x%08x)", bits);
  return buf;
}

std::string bits_literal(DType t, double v) {
  const float x = static_cast<float>(round_to(t, v));  // a value of t: its bits are exact
  uint32_t b;
  std::memcpy(&b, &x, 4);
  unsigned h = b >> 16;  // bf16: the float's upper half
  if (t == DType::F16) {
    const unsigned sign = (b >> 16) & 0x8000u;
    const float a = std::fabs(x);
    int e = 0;
    const float m = std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
    if (std::isnan(x)) h = sign | 0x7e00u;
    else if (std::isinf(x)) h = sign | 0x7c00u;
    else if (a == 0) h = sign;
    else if (e + 14 >= 1) h = sign | static_cast<unsigned>(e + 14) << 10 | static_cast<unsigned>((2 * m - 1) * 1024);
    else h = sign | static_cast<unsigned>(a * 16777216.0f);  // subnormal: a multiple of 2^-24
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", h);
  return buf;
}

std::string rounded(DType t, const std::string& e) {
  switch (t) {
    case DType::F16: return "round_f16(" + e + ")";
    case DType::BF16: return "round_bf16(" + e + ")";
    case DType::F8E4M3: return "round_e4m3(" + e + ")";
    case DType::F8E5M2: return "round_e5m2(" + e + ")";
    default: return e;
  }
}

namespace {
bool is_f64(DType t) { return t == DType::F64; }

// Whether the f32 constant v is a value of t (its widening: exact in t's arithmetic).
bool holds_exactly(DType t, double v) { return round_to(t, v) == round_to(DType::F32, v); }

// a + b, a - b, a * b each rounded once, as eager's one-op kernels round them: the rounding
// intrinsics keep NVRTC (--fmad=true by default) from contracting a * b + c into one FMA, one
// rounding fewer than eager (issue 29). Integers wrap as torch's do: the math is unsigned, since
// signed overflow is undefined in C++.
std::string arith(char op, DType out, const std::string& a, const std::string& b) {
  const char* name = op == '+' ? "add" : op == '-' ? "sub" : "mul";
  switch (out) {
    case DType::F64: return std::string("__d") + name + "_rn(" + a + ", " + b + ")";
    case DType::I32: return "(int)((unsigned)(" + a + ") " + op + " (unsigned)(" + b + "))";
    case DType::I64: return "(i64)((unsigned long long)(" + a + ") " + op + " (unsigned long long)(" + b + "))";
    case DType::Bool: return "(" + a + " " + op + " " + b + ")";
    default: return rounded(out, std::string("__f") + name + "_rn(" + a + ", " + b + ")");
  }
}
}  // namespace

ExprEmitter::ExprEmitter(const Fusion& f, std::function<std::string(int)> provided)
    : f_(f), provided_(std::move(provided)) {}

std::string ExprEmitter::pair_literal(DType t, double v) const {
  const std::string h = bits_literal(t, v);
  return pairs_ ? h + h.substr(2) + "u" : h;
}

std::string ExprEmitter::raw_bits(int id, std::string& code, const std::string& indent) {
  if (auto it = raw_done_.find(id); it != raw_done_.end()) return it->second;
  // All or nothing: where a later operand has no bits, the earlier ones' code goes again (it
  // may read inputs that this part of the kernel has not loaded).
  const size_t mark = code.size();
  auto raw_before = raw_done_;
  auto done_before = done_;
  auto conds_before = pair_cond_done_;
  std::string r = raw_bits_of(id, code, indent);
  if (r.empty()) {
    code.resize(mark);
    raw_done_ = std::move(raw_before);
    done_ = std::move(done_before);
    pair_cond_done_ = std::move(conds_before);
  }
  return r;
}

std::string ExprEmitter::raw_bits_of(int id, std::string& code, const std::string& indent) {
  const Value& v = f_.value(id);
  if ((v.dtype != DType::F16 && v.dtype != DType::BF16) || !raw_) return "";
  if (v.producer >= 0 && f_.nodes()[v.producer].op == Op::Constant)
    return raw_done_[id] = pair_literal(v.dtype, f_.nodes()[v.producer].attrs.value);
  if (std::string r = raw_(id); !r.empty()) return raw_done_[id] = r;
  if (v.producer < 0) return "";
  const Node& n0 = f_.nodes()[v.producer];
  // -a and |a| of dtype t: a sign bit flipped or cleared (exact, as eager's float round trip).
  if ((n0.op == Op::Neg || n0.op == Op::Abs) && f_.value(n0.in[0]).dtype == v.dtype) {
    const std::string a = raw_bits(n0.in[0], code, indent);
    if (a.empty()) return "";
    const std::string name = "h" + std::to_string(id);
    const std::string sign = pairs_ ? "0x80008000u" : "0x8000u";
    code += indent + (pairs_ ? "const unsigned " : "const u16 ") + name + " = " + (pairs_ ? "" : "(u16)") + "(" + a +
            (n0.op == Op::Neg ? " ^ " + sign : " & ~" + sign) + ");\n";
    return raw_done_[id] = name;
  }
  // where(c, a, b) of dtype t, a and b of dtype t with bits at hand (or constants): the bits of
  // one of them, selected; no widening, and no rounding back (exact: a and b are values of t).
  // In pairs, each half by its own element's condition.
  if (const Node& n = f_.nodes()[v.producer]; n.op == Op::Where) {
    if (pairs_ && !pair_cond_) return "";
    std::string side[2];
    for (int i = 0; i < 2; ++i) {
      const Value& s = f_.value(n.in[i + 1]);
      if (s.dtype != v.dtype) return "";
      side[i] = raw_bits(n.in[i + 1], code, indent);
      if (side[i].empty()) return "";
    }
    const std::string name = "h" + std::to_string(id);
    if (pairs_) {
      auto it = pair_cond_done_.find(n.in[0]);
      if (it == pair_cond_done_.end()) it = pair_cond_done_.emplace(n.in[0], pair_cond_(n.in[0], code, indent)).first;
      const auto [lo, hi] = it->second;
      if (lo.empty()) return "";
      if (lo == hi)
        code += indent + "const unsigned " + name + " = " + lo + " ? " + side[0] + " : " + side[1] + ";\n";
      else
        code += indent + "const unsigned " + name + " = __byte_perm(" + lo + " ? " + side[0] + " : " + side[1] + ", " + hi +
                " ? " + side[0] + " : " + side[1] + ", 0x7610);\n";
      return raw_done_[id] = name;
    }
    const std::string cond = value(n.in[0], code, indent);
    code += indent + "const u16 " + name + " = " + cond + " ? (u16)" + side[0] + " : (u16)" + side[1] + ";\n";
    return raw_done_[id] = name;
  }
  // t(x) where x = widen(a) OP widen(b), a and b of dtype t with raw bits at hand; an f32
  // constant that is a value of t stands for its widening.
  const Node& cast = f_.nodes()[v.producer];
  if (cast.op != Op::Cast || f_.value(cast.in[0]).dtype != DType::F32) return "";
  const Value& x = f_.value(cast.in[0]);
  if (x.producer < 0) return "";
  const Node& m = f_.nodes()[x.producer];
  const char* op = m.op == Op::Add ? "_add" : m.op == Op::Sub ? "_sub" : m.op == Op::Mul ? "_mul" : nullptr;
  if (!op || m.in.size() != 2) return "";
  std::string raw_in[2];
  for (int i = 0; i < 2; ++i) {
    const Value& w = f_.value(m.in[i]);
    if (w.producer < 0) return "";
    const Node& widen = f_.nodes()[w.producer];
    if (widen.op == Op::Constant && w.dtype == DType::F32 && holds_exactly(v.dtype, widen.attrs.value)) {
      raw_in[i] = pair_literal(v.dtype, widen.attrs.value);
      continue;
    }
    if (widen.op != Op::Cast || f_.value(widen.in[0]).dtype != v.dtype) return "";
    raw_in[i] = raw_bits(widen.in[0], code, indent);
    if (raw_in[i].empty()) return "";
  }
  const std::string fn = std::string(v.dtype == DType::F16 ? "f16" : "bf16") + (pairs_ ? "x2" : "") + op;
  const std::string name = "h" + std::to_string(id);
  code += indent + (pairs_ ? "const unsigned " : "const u16 ") + name + " = " + fn + "(" + raw_in[0] + ", " + raw_in[1] + ");\n";
  return raw_done_[id] = name;
}

std::string ExprEmitter::value(int id, std::string& code, const std::string& indent) {
  if (auto it = done_.find(id); it != done_.end()) return it->second;
  std::string p = provided_(id);
  if (!p.empty()) return done_[id] = p;
  const Value& v = f_.value(id);
  const Op op = v.producer >= 0 ? f_.nodes()[v.producer].op : Op::Constant;
  if (v.producer >= 0 && op == Op::Constant) return done_[id] = literal(v.dtype, f_.nodes()[v.producer].attrs.value);
  // A sign flipped or cleared in a float register is free (an operand modifier): bits only for
  // readers of bits.
  if (std::string h = op == Op::Neg || op == Op::Abs ? std::string() : raw_bits(id, code, indent); !h.empty()) {
    std::string name = "v" + std::to_string(id);
    code += indent + "const float " + name + " = " + load_convert(f_.value(id).dtype, h) + ";\n";
    return done_[id] = name;
  }
  if (v.producer < 0) throw Error("codegen: input " + v.name + " was not provided to the kernel");
  const Node& n = f_.nodes()[v.producer];
  std::string name = std::string("v").append(std::to_string(id));
  if (n.op == Op::Window) {
    if (!window_) throw Error("codegen: a window (a cat's pieces) outside a pointwise kernel");
    code += indent + "const bool " + name + " = " + window_(id) + ";\n";
    return done_[id] = name;
  }
  std::vector<std::string> args;
  for (int x : n.in) args.push_back(value(x, code, indent));
  code += indent + "const " + compute_type(v.dtype) + " " + name + " = " + op_expr(n, args, v.dtype) + ";\n";
  return done_[id] = name;
}

// A value of f16 in an f32 register: widened from f16, or a constant that f16 holds exactly.
bool ExprEmitter::f16_valued(int id) const {
  const Value& v = f_.value(id);
  if (v.producer < 0) return false;
  const Node& n = f_.nodes()[v.producer];
  if (n.op == Op::Constant) return holds_exactly(DType::F16, n.attrs.value);
  return n.op == Op::Cast && f_.value(n.in[0]).dtype == DType::F16;
}

bool ExprEmitter::f16_quotient(const Node& n) const {
  if (n.op != Op::Div || f_.value(n.out[0]).dtype != DType::F32 || !f16_valued(n.in[0]) || !f16_valued(n.in[1])) return false;
  const int q = n.out[0];
  if (std::find(f_.outputs().begin(), f_.outputs().end(), q) != f_.outputs().end()) return false;
  bool read = false;
  for (const Node& m : f_.nodes())
    for (int x : m.in)
      if (x == q) {
        if (m.op != Op::Cast || m.attrs.dtype != DType::F16) return false;
        read = true;
      }
  return read;
}

std::string ExprEmitter::op_expr(const Node& n, const std::vector<std::string>& a, DType out) {
  const bool dbl = is_f64(out);
  // Results rounded to f16/bf16 use the hardware approximations whose error is far below that
  // rounding (ex2.approx: 2^-22 relative), for fewer instructions. Not tanh.approx: its 2^-11 is
  // f16's own half ulp, so it moved results by an ulp, which later f32 arithmetic then carried.
  const bool fast = out == DType::F16 || out == DType::BF16;
  // f32 math whose every result reaches memory narrower (set_narrow_results): exp, sigmoid and
  // silu take the same approximations, their 2^-21 relative error far below the results'
  // rounding (a sigmoid of a sigmoid in f32 to an f16 output spent most of its time in two
  // expf and two IEEE divisions an element: seed 38 #147).
  const bool narrow_f32 = out == DType::F32 && narrow_results_;
  auto fn = [&](const char* flt, const char* d) { return std::string(dbl ? d : flt) + "(" + a[0] + ")"; };
  // An f32 quotient under set_checked_divisions: exact as a / b, no branch of its own.
  const bool checked = checked_ && is_floating(out) && !dbl;
  auto ieee_div = [&](const std::string& x, const std::string& y) {
    if (!checked) return x + " / " + y;
    ++checked_count_;
    return "div_checked(" + x + ", " + y + ", dslow)";
  };
  DType in0 = n.in.empty() ? out : f_.value(n.in[0]).dtype;
  switch (n.op) {
    case Op::Neg:
      if (out == DType::I32) return "(int)(0u - (unsigned)(" + a[0] + "))";
      if (out == DType::I64) return "(i64)(0ull - (unsigned long long)(" + a[0] + "))";
      // Not rounded: a float type's value negated is one (sign-magnitude formats), and the
      // rounding back cost two instructions an element.
      return "(-(" + a[0] + "))";
    case Op::Abs: return "s_abs(" + a[0] + ")";
    case Op::Exp: return rounded(out, fast || narrow_f32 ? "__expf(" + a[0] + ")" : fn("expf", "exp"));
    case Op::Log: return rounded(out, fn("logf", "log"));
    case Op::Sqrt: return rounded(out, fn("sqrtf", "sqrt"));
    case Op::Rsqrt: return rounded(out, fn("rsqrtf", "rsqrt"));
    case Op::Reciprocal: return rounded(out, ieee_div(dbl ? "1.0" : "1.0f", a[0]));
    case Op::Tanh:
      // A bf16 input rounded to bf16: the hardware tanh agrees (tanh_bf16 in the device runtime).
      if (out == DType::BF16 && in0 == DType::BF16) return rounded(out, "tanh_bf16(" + a[0] + ")");
      return rounded(out, fn("tanhf", "tanh"));
    case Op::Sigmoid:
      if (fast || narrow_f32) return rounded(out, "fast_sigmoid(" + a[0] + ")");
      return rounded(out, checked ? ieee_div("1.0f", "(1.0f + expf(-" + a[0] + "))") : "s_sigmoid(" + a[0] + ")");
    case Op::Erf: return rounded(out, fn("erff", "erf"));
    case Op::Sin: return rounded(out, fn("sinf", "sin"));
    case Op::Cos: return rounded(out, fn("cosf", "cos"));
    case Op::Relu: return "s_relu(" + a[0] + ")";
    case Op::Gelu: return rounded(out, "s_gelu(" + a[0] + ")");
    case Op::GeluTanh: return rounded(out, (fast ? "fast_gelu_tanh(" : "s_gelu_tanh(") + a[0] + ")");
    case Op::Silu:
      if (fast || narrow_f32) return rounded(out, "fast_silu(" + a[0] + ")");
      return rounded(out, checked ? ieee_div(a[0], "(1.0f + expf(-" + a[0] + "))") : "s_silu(" + a[0] + ")");
    case Op::LogicalNot: return "!(" + a[0] + ")";
    case Op::Log1p: return rounded(out, fn("log1pf", "log1p"));
    case Op::Expm1: return rounded(out, fn("expm1f", "expm1"));
    // Whole numbers: an integer's value as it is; a float's rounding back is exact.
    case Op::Floor: return is_floating(out) ? rounded(out, fn("floorf", "floor")) : a[0];
    case Op::Ceil: return is_floating(out) ? rounded(out, fn("ceilf", "ceil")) : a[0];
    case Op::Trunc: return is_floating(out) ? rounded(out, fn("truncf", "trunc")) : a[0];
    case Op::Round: return is_floating(out) ? rounded(out, fn("rintf", "rint")) : a[0];  // halves to even
    case Op::Add: return arith('+', out, a[0], a[1]);
    case Op::Sub: return arith('-', out, a[0], a[1]);
    case Op::Mul: return arith('*', out, a[0], a[1]);
    // A correctly rounded division (NVRTC's default -prec-div=true), as eager's, wherever a
    // result keeps f32; never the product with a reciprocal there, which differs in the last
    // bit (issue 29). A kernel whose results are all narrower (a softmax's e / sum to bf16)
    // takes the reciprocal's product (device runtime: div_narrow), below their rounding.
    case Op::Div: {
      const char* short_div = f16_quotient(n) ? "div_f16(" : narrow_f32 ? "div_narrow(" : nullptr;
      return rounded(out, short_div ? short_div + a[0] + ", " + a[1] + ")" : ieee_div(a[0], a[1]));
    }
    case Op::Pow: return rounded(out, std::string(dbl ? "pow(" : "powf(") + a[0] + ", " + a[1] + ")");
    case Op::Maximum: return "s_max(" + a[0] + ", " + a[1] + ")";
    case Op::Minimum: return "s_min(" + a[0] + ", " + a[1] + ")";
    case Op::Eq: return "(" + a[0] + " == " + a[1] + ")";
    case Op::Ne: return "(" + a[0] + " != " + a[1] + ")";
    case Op::Lt: return "(" + a[0] + " < " + a[1] + ")";
    case Op::Le: return "(" + a[0] + " <= " + a[1] + ")";
    case Op::Gt: return "(" + a[0] + " > " + a[1] + ")";
    case Op::Ge: return "(" + a[0] + " >= " + a[1] + ")";
    case Op::LogicalAnd: return "((" + a[0] + ") != 0 && (" + a[1] + ") != 0)";
    case Op::LogicalOr: return "((" + a[0] + ") != 0 || (" + a[1] + ") != 0)";
    case Op::Where: return "(" + a[0] + " ? " + a[1] + " : " + a[2] + ")";
    case Op::Clamp: {  // min(max(x, lo), hi), NaN passes through
      // In f32 a nonzero bound is one NaN-propagating max/min; a zero bound keeps the compare
      // (it leaves -0 as -0, as the reference does).
      const bool f32 = std::string(compute_type(out)) == "float";
      auto bound = [&](const std::string& e, double b, const char* cmp, const char* fn) {
        if (f32 && b != 0) return std::string(fn) + "(" + e + ", " + literal(out, b) + ")";
        return "(" + e + cmp + literal(out, b) + " ? " + literal(out, b) + " : " + e + ")";
      };
      std::string e = a[0];
      if (n.attrs.lo != -INFINITY) e = bound(e, n.attrs.lo, " < ", "s_max");
      if (n.attrs.hi != INFINITY) e = bound(e, n.attrs.hi, " > ", "s_min");
      return e;
    }
    case Op::Cast: {
      DType to = n.attrs.dtype;
      if (to == DType::Bool) return "(" + a[0] + " != 0)";
      if (is_floating(to)) {
        std::string c = std::string("(") + compute_type(to) + ")(" + a[0] + ")";
        return to == DType::F64 || to == DType::F32 ? c : rounded(to, c);
      }
      // float -> int truncates toward zero (C semantics, like PyTorch); NaN maps to 0.
      if (is_floating(in0)) return std::string("(") + compute_type(to) + ")(" + a[0] + " != " + a[0] + " ? 0 : " + a[0] + ")";
      return std::string("(") + compute_type(to) + ")(" + a[0] + ")";
    }
    default: break;
  }
  throw Error(std::string("codegen: op ") + op_name(n.op) + " cannot be emitted as element math");
}

}  // namespace solder
