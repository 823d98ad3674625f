#include "ir/printer.h"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "solder/error.h"

namespace solder {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

const std::string& checked_name(const Fusion& f, int id) {
  const std::string& n = f.value(id).name;
  if (!is_identifier(n))
    throw Error("print_fusion(" + f.name() + "): value name '" + n + "' is not an identifier " +
                "(letters, digits, '_'); rename it before printing");
  return n;
}

std::string number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string int_list(const std::vector<int64_t>& xs) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + std::to_string(xs[i]);
  return s + "]";
}

// Attribute text in AttrBit order; only the bits the op uses.
std::string attr_list(const Node& n) {
  const uint32_t bits = op_info(n.op).attrs;
  const Attrs& a = n.attrs;
  std::string s;
  auto put = [&](const char* key, const std::string& val) { s += std::string(", ") + key + "=" + val; };
  if (bits & kValue) put("value", number(a.value));
  if (bits & kDType) put("dtype", std::string(dtype_name(a.dtype)));
  if (bits & kLo) put("lo", number(a.lo));
  if (bits & kHi) put("hi", number(a.hi));
  if (bits & kAxes) put("axes", int_list(a.axes));
  if (bits & kKeepdim) put("keepdim", a.keepdim ? "true" : "false");
  if (bits & kCorrection) put("correction", std::to_string(a.correction));
  if (bits & kShape) put("shape", shape_str(a.shape));
  if (bits & kAxis) put("axis", std::to_string(a.axis));
  const bool bounds = n.op == Op::Pad || n.op == Op::Window;  // size expressions
  if (bits & kStart) put("start", bounds ? a.bound_start.str() : std::to_string(a.start));
  if (bits & kEnd) put("end", bounds ? a.bound_end.str() : a.end == kSliceToEnd ? "end" : std::to_string(a.end));
  if (bits & kStep) put("step", std::to_string(a.step));
  return s;
}

}  // namespace

std::string print_node_call(const Fusion& f, const Node& n) {
  std::string s = std::string(op_name(n.op)) + "(";
  std::string args;
  for (size_t i = 0; i < n.in.size(); ++i) args += (i ? ", " : "") + checked_name(f, n.in[i]);
  std::string attrs = attr_list(n);
  if (args.empty() && !attrs.empty()) attrs = attrs.substr(2);  // no operands: drop ", "
  return s + args + attrs + ")";
}

std::string print_fusion(const Fusion& f) {
  if (!is_identifier(f.name()))
    throw Error("print_fusion: the fusion name '" + f.name() + "' is not an identifier");
  std::string s = "fusion " + f.name() + " {\n";
  for (int id : f.inputs()) {
    const Value& v = f.value(id);
    s += "  input " + checked_name(f, id) + ": " + std::string(dtype_name(v.dtype)) + shape_str(v.shape) + "\n";
  }
  for (const Node& n : f.nodes()) {
    s += "  ";
    for (size_t i = 0; i < n.out.size(); ++i) s += (i ? ", " : "") + checked_name(f, n.out[i]);
    s += " = " + print_node_call(f, n) + "\n";
  }
  for (int id : f.outputs()) s += "  output " + checked_name(f, id) + "\n";
  return s + "}\n";
}

}  // namespace solder
