#include "solder/dim.h"

#include <cctype>

#include "solder/error.h"

namespace solder {

struct Dim::Node {
  enum Kind { Const, Sym, Add, Mul } kind;
  int64_t value = 0;
  std::string name;
  std::shared_ptr<const Node> a, b;
};

Dim::Dim(int64_t v) : node_(std::make_shared<Node>(Node{Node::Const, v, {}, nullptr, nullptr})) {}

Dim Dim::sym(std::string name) {
  return Dim(std::make_shared<Node>(Node{Node::Sym, 0, std::move(name), nullptr, nullptr}));
}

bool Dim::is_const() const { return node_->kind == Node::Const; }
std::optional<int64_t> Dim::const_value() const {
  if (node_->kind == Node::Const) return node_->value;
  return std::nullopt;
}

int64_t Dim::eval(const Bindings& b) const {
  switch (node_->kind) {
    case Node::Const: return node_->value;
    case Node::Sym: {
      auto it = b.find(node_->name);
      if (it == b.end()) throw Error("size symbol '" + node_->name + "' has no value bound");
      return it->second;
    }
    case Node::Add: return Dim(node_->a).eval(b) + Dim(node_->b).eval(b);
    case Node::Mul: return Dim(node_->a).eval(b) * Dim(node_->b).eval(b);
  }
  return 0;
}

std::string Dim::str() const {
  switch (node_->kind) {
    case Node::Const: return std::to_string(node_->value);
    case Node::Sym: return node_->name;
    case Node::Add: return Dim(node_->a).str() + "+" + Dim(node_->b).str();
    case Node::Mul: {
      auto wrap = [](const std::shared_ptr<const Node>& n) {
        std::string s = Dim(n).str();
        return n->kind == Node::Add ? "(" + s + ")" : s;
      };
      return wrap(node_->a) + "*" + wrap(node_->b);
    }
  }
  return "?";
}

void Dim::collect_symbols(std::vector<std::string>& out) const {
  if (node_->kind == Node::Sym) {
    for (const auto& s : out)
      if (s == node_->name) return;
    out.push_back(node_->name);
  } else if (node_->a) {
    Dim(node_->a).collect_symbols(out);
    Dim(node_->b).collect_symbols(out);
  }
}

Dim operator+(const Dim& a, const Dim& b) {
  if (a.is_const() && b.is_const()) return Dim(*a.const_value() + *b.const_value());
  if (b.const_value() == 0) return a;
  if (a.const_value() == 0) return b;
  return Dim(std::make_shared<Dim::Node>(Dim::Node{Dim::Node::Add, 0, {}, a.node_, b.node_}));
}

Dim operator*(const Dim& a, const Dim& b) {
  if (a.is_const() && b.is_const()) return Dim(*a.const_value() * *b.const_value());
  if (a.is_one()) return b;
  if (b.is_one()) return a;
  return Dim(std::make_shared<Dim::Node>(Dim::Node{Dim::Node::Mul, 0, {}, a.node_, b.node_}));
}

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + s[i].str();
  return r + "]";
}

namespace {
// Recursive descent over: sum := prod ('+' prod)* ; prod := atom ('*' atom)* ;
// atom := ['-'] digits | identifier | '(' sum ')'
struct DimParser {
  const std::string& t;
  size_t p = 0;
  void skip() {
    while (p < t.size() && std::isspace(static_cast<unsigned char>(t[p]))) ++p;
  }
  [[noreturn]] void fail(const std::string& what) {
    throw Error("bad size expression '" + t + "' at column " + std::to_string(p + 1) + ": " + what);
  }
  Dim atom() {
    skip();
    if (p >= t.size()) fail("expected a size");
    if (t[p] == '(') {
      ++p;
      Dim d = sum();
      skip();
      if (p >= t.size() || t[p] != ')') fail("expected ')'");
      ++p;
      return d;
    }
    size_t s = p;
    if (t[p] == '-') ++p;
    if (p < t.size() && std::isdigit(static_cast<unsigned char>(t[p]))) {
      while (p < t.size() && std::isdigit(static_cast<unsigned char>(t[p]))) ++p;
      return Dim(static_cast<int64_t>(std::stoll(t.substr(s, p - s))));
    }
    p = s;
    if (!(std::isalpha(static_cast<unsigned char>(t[p])) || t[p] == '_')) fail("expected a number or a name");
    while (p < t.size() && (std::isalnum(static_cast<unsigned char>(t[p])) || t[p] == '_')) ++p;
    return Dim::sym(t.substr(s, p - s));
  }
  Dim prod() {
    Dim d = atom();
    for (skip(); p < t.size() && t[p] == '*'; skip()) {
      ++p;
      d = d * atom();
    }
    return d;
  }
  Dim sum() {
    Dim d = prod();
    for (skip(); p < t.size() && t[p] == '+'; skip()) {
      ++p;
      d = d + prod();
    }
    return d;
  }
};
}  // namespace

Dim parse_dim(const std::string& text) {
  DimParser ps{text};
  Dim d = ps.sum();
  ps.skip();
  if (ps.p != text.size()) ps.fail("unexpected character");
  return d;
}

}  // namespace solder
