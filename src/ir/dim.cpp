#include "solder/dim.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "ir/limits.h"
#include "solder/error.h"

namespace solder {

struct Dim::Node {
  enum Kind { Const, Sym, Add, Mul, Min, CeilDiv } kind;
  int64_t value = 0;
  std::string name;
  std::shared_ptr<const Node> a, b;
  int depth = 1;
};

namespace {
using NodePtr = std::shared_ptr<const Dim::Node>;

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Evaluates without throwing on overflow: false when some step does not fit int64.
bool eval_node(const Dim::Node& n, const Bindings& b, int64_t& out) {
  int64_t x = 0, y = 0;
  switch (n.kind) {
    case Dim::Node::Const: out = n.value; return true;
    case Dim::Node::Sym: {
      auto it = b.find(n.name);
      if (it == b.end()) throw Error("size symbol '" + n.name + "' has no value bound");
      out = it->second;
      return true;
    }
    default: break;
  }
  if (!eval_node(*n.a, b, x) || !eval_node(*n.b, b, y)) return false;
  switch (n.kind) {
    case Dim::Node::Add: return !__builtin_add_overflow(x, y, &out);
    case Dim::Node::Mul: return !__builtin_mul_overflow(x, y, &out);
    case Dim::Node::Min: out = std::min(x, y); return true;
    case Dim::Node::CeilDiv:
      if (y <= 0) throw Error("size expression divides by " + std::to_string(y));
      out = x <= 0 ? 0 : (x - 1) / y + 1;
      return true;
    default: return false;
  }
}
}  // namespace

Dim::Dim(int64_t v) : node_(std::make_shared<Node>(Node{Node::Const, v, {}, nullptr, nullptr})) {}

Dim Dim::sym(std::string name) {
  if (!is_identifier(name))
    throw Error("size symbol '" + name + "' is not an identifier (letters, digits and '_', not starting with a digit)");
  return Dim(std::make_shared<Node>(Node{Node::Sym, 0, std::move(name), nullptr, nullptr}));
}

bool Dim::is_const() const { return node_->kind == Node::Const; }
std::optional<int64_t> Dim::const_value() const {
  if (node_->kind == Node::Const) return node_->value;
  return std::nullopt;
}

int64_t Dim::eval(const Bindings& b) const {
  int64_t v = 0;
  if (eval_node(*node_, b, v)) return v;
  std::vector<std::string> syms;
  collect_symbols(syms);
  std::string vals;
  for (const auto& s : syms) vals += (vals.empty() ? "" : ", ") + s + "=" + std::to_string(b.at(s));
  throw Error("size " + str() + " overflows int64 for " + vals);
}

std::string Dim::str() const {
  const Node& n = *node_;
  switch (n.kind) {
    case Node::Const: return std::to_string(n.value);
    case Node::Sym: return n.name;
    case Node::Add: return Dim(n.a).str() + "+" + Dim(n.b).str();
    case Node::Mul: {
      auto wrap = [](const NodePtr& p) {
        std::string s = Dim(p).str();
        return p->kind == Node::Add ? "(" + s + ")" : s;
      };
      return wrap(n.a) + "*" + wrap(n.b);
    }
    case Node::Min: return "min(" + Dim(n.a).str() + ", " + Dim(n.b).str() + ")";
    case Node::CeilDiv: return "ceildiv(" + Dim(n.a).str() + ", " + Dim(n.b).str() + ")";
  }
  return "?";
}

void Dim::collect_symbols(std::vector<std::string>& out) const {
  if (node_->kind == Node::Sym) {
    if (std::find(out.begin(), out.end(), node_->name) == out.end()) out.push_back(node_->name);
  } else if (node_->a) {
    Dim(node_->a).collect_symbols(out);
    Dim(node_->b).collect_symbols(out);
  }
}

bool Dim::as_product(int64_t& c, std::vector<Dim>& factors) const {
  switch (node_->kind) {
    case Node::Const: return !__builtin_mul_overflow(c, node_->value, &c);
    case Node::Add: return false;
    case Node::Mul: return Dim(node_->a).as_product(c, factors) && Dim(node_->b).as_product(c, factors);
    default: {
      std::string s = str();
      auto at = std::lower_bound(factors.begin(), factors.end(), s, [](const Dim& d, const std::string& k) { return d.str() < k; });
      factors.insert(at, *this);
      return true;
    }
  }
}

bool Dim::is_plain_product() const {
  int64_t c = 1;
  std::vector<Dim> factors;
  if (!as_product(c, factors)) return false;
  for (const Dim& x : factors) {
    std::vector<std::string> names;
    x.collect_symbols(names);
    if (names.size() != 1 || names[0] != x.str()) return false;
  }
  return true;
}

namespace {
NodePtr make(Dim::Node::Kind k, const NodePtr& a, const NodePtr& b) {
  int depth = 1 + std::max(a->depth, b->depth);
  if (depth > kMaxDimDepth)
    throw Error("size expression is nested more than " + std::to_string(kMaxDimDepth) + " levels deep");
  return std::make_shared<Dim::Node>(Dim::Node{k, 0, {}, a, b, depth});
}
}  // namespace

namespace {
void sum_terms(const NodePtr& n, std::vector<NodePtr>& out) {
  if (n->kind == Dim::Node::Add) {
    sum_terms(n->a, out);
    sum_terms(n->b, out);
  } else {
    out.push_back(n);
  }
}
}  // namespace

// Like terms combine (c1*t + c2*t = (c1+c2)*t, constants add), so that the pieces of a cat of
// slices of a symbolic dim sum back to that dim: K+-1*min(K, 256)+min(K, 256) is K, and a kernel
// over the cat spans the same dims as one over its input. Terms are then in one order, so sums
// that mean the same print the same: 2+W and 1+W+1 are both W+2, W+H is H+W (a pad of a cat's
// piece spans the cat's dim however the program wrote either). Products keep their order.
Dim operator+(const Dim& a, const Dim& b) {
  if (a.is_const() && b.is_const()) return Dim(checked_add(*a.const_value(), *b.const_value(), "size expression"));
  if (b.const_value() == 0) return a;
  if (a.const_value() == 0) return b;
  struct Term {
    std::string key;  // the factors' text, "" for the constant
    int64_t c = 1;
    std::vector<Dim> factors;
  };
  std::vector<NodePtr> nodes;
  sum_terms(a.node_, nodes);
  sum_terms(b.node_, nodes);
  std::vector<Term> terms;
  for (const NodePtr& n : nodes) {
    Term t;
    if (!Dim(n).as_product(t.c, t.factors)) t = Term{Dim(n).str(), 1, {Dim(n)}};
    for (size_t i = 0; i < t.factors.size(); ++i) t.key += (i ? "*" : "") + t.factors[i].str();
    auto same = std::find_if(terms.begin(), terms.end(), [&](const Term& u) { return u.key == t.key; });
    if (same == terms.end()) {
      terms.push_back(std::move(t));
      continue;
    }
    int64_t sum = 0;
    if (__builtin_add_overflow(same->c, t.c, &sum)) return Dim(make(Dim::Node::Add, a.node_, b.node_));
    same->c = sum;
  }
  // Added terms by their text, then subtracted ones, then the constant: H+W+-1*min(W, 2)+3.
  auto rank = [](const Term& t) { return t.factors.empty() ? 2 : t.c < 0 ? 1 : 0; };
  std::stable_sort(terms.begin(), terms.end(),
                   [&](const Term& x, const Term& y) { return std::pair(rank(x), x.key) < std::pair(rank(y), y.key); });
  std::optional<Dim> out;
  for (const Term& t : terms) {
    if (t.c == 0) continue;
    Dim term(t.c);
    if (!t.factors.empty()) {
      term = t.factors[0];
      for (size_t i = 1; i < t.factors.size(); ++i) term = term * t.factors[i];
      if (t.c != 1) term = Dim(t.c) * term;
    }
    out = out ? Dim(make(Dim::Node::Add, out->node_, term.node_)) : term;
  }
  return out ? *out : Dim(0);
}

Dim operator*(const Dim& a, const Dim& b) {
  if (a.is_const() && b.is_const()) return Dim(checked_mul(*a.const_value(), *b.const_value(), "size expression"));
  if (a.is_one()) return b;
  if (b.is_one()) return a;
  return Dim(make(Dim::Node::Mul, a.node_, b.node_));
}

Dim Dim::min(const Dim& a, const Dim& b) {
  if (a.is_const() && b.is_const()) return Dim(std::min(*a.const_value(), *b.const_value()));
  if (a == b) return a;
  return Dim(make(Node::Min, a.node_, b.node_));
}

Dim Dim::ceildiv(const Dim& a, const Dim& b) {
  if (auto d = b.const_value(); !d || *d <= 0) throw Error("ceildiv(" + a.str() + ", " + b.str() + "): the divisor must be a positive constant");
  if (b.is_one()) return a;
  if (auto n = a.const_value()) return Dim(*n <= 0 ? 0 : (*n - 1) / *b.const_value() + 1);
  return Dim(make(Node::CeilDiv, a.node_, b.node_));
}

std::string shape_str(const Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + s[i].str();
  return r + "]";
}

namespace {
// Recursive descent over: sum := prod ('+' prod)* ; prod := atom ('*' atom)* ;
// atom := ['-'] digits | identifier | ('min' | 'ceildiv') '(' sum ',' sum ')' | '(' sum ')'.
// Parentheses nest at most kMaxDimDepth deep (the recursion is bounded).
struct DimParser {
  const std::string& t;
  size_t p = 0;
  int depth = 0;
  void skip() {
    while (p < t.size() && std::isspace(static_cast<unsigned char>(t[p]))) ++p;
  }
  [[noreturn]] void fail(const std::string& what) {
    std::string shown = t.size() > 80 ? t.substr(0, 77) + "..." : t;
    throw Error("bad size expression '" + shown + "' at column " + std::to_string(p + 1) + ": " + what);
  }
  void expect(char c) {
    skip();
    if (p >= t.size() || t[p] != c) fail(std::string("expected '") + c + "'");
    ++p;
  }
  Dim nested() {
    if (++depth > kMaxDimDepth) fail("nested more than " + std::to_string(kMaxDimDepth) + " levels deep");
    Dim d = sum();
    --depth;
    return d;
  }
  Dim atom() {
    skip();
    if (p >= t.size()) fail("expected a size");
    if (t[p] == '(') {
      ++p;
      Dim d = nested();
      expect(')');
      return d;
    }
    size_t s = p;
    if (t[p] == '-') ++p;
    if (p < t.size() && std::isdigit(static_cast<unsigned char>(t[p]))) {
      while (p < t.size() && std::isdigit(static_cast<unsigned char>(t[p]))) ++p;
      int64_t v = 0;
      auto [end, ec] = std::from_chars(t.data() + s, t.data() + p, v);
      if (ec != std::errc() || end != t.data() + p) fail("the number does not fit int64");
      return Dim(v);
    }
    p = s;
    if (!(std::isalpha(static_cast<unsigned char>(t[p])) || t[p] == '_')) fail("expected a number or a name");
    while (p < t.size() && (std::isalnum(static_cast<unsigned char>(t[p])) || t[p] == '_')) ++p;
    std::string name = t.substr(s, p - s);
    size_t after = p;
    skip();
    if ((name == "min" || name == "ceildiv") && p < t.size() && t[p] == '(') {
      ++p;
      Dim a = nested();
      expect(',');
      Dim b = nested();
      expect(')');
      return name == "min" ? Dim::min(a, b) : Dim::ceildiv(a, b);
    }
    p = after;
    return Dim::sym(name);
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
  try {
    Dim d = ps.sum();
    ps.skip();
    if (ps.p != text.size()) ps.fail("unexpected character");
    return d;
  } catch (const Error& e) {
    std::string m = e.what();
    if (m.rfind("bad size expression", 0) == 0) throw;
    ps.fail(m);  // an overflow or depth error from building the Dim: say where
  }
}

}  // namespace solder
