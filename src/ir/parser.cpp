#include "ir/parser.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "ir/limits.h"
#include "ir/text_lexer.h"
#include "solder/error.h"

namespace solder {

namespace {

struct AttrName {
  const char* name;
  AttrBit bit;
};
constexpr AttrName kAttrNames[] = {
    {"value", kValue}, {"dtype", kDType},     {"lo", kLo},     {"hi", kHi},
    {"axes", kAxes},   {"keepdim", kKeepdim}, {"correction", kCorrection}, {"shape", kShape},
    {"axis", kAxis},   {"start", kStart},     {"end", kEnd},   {"step", kStep},
};

// Attributes a statement may leave out, because Attrs' default is the natural meaning.
uint32_t optional_attrs(Op op) {
  uint32_t m = kLo | kHi | kKeepdim | kEnd | kStep;
  if (op_info(op).kind == OpKind::Reduction) m |= kAxes;  // [] = every axis
  return m;
}

std::string attr_names(uint32_t bits) {
  std::string s;
  for (const auto& a : kAttrNames)
    if (bits & a.bit) s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s.empty() ? "none" : s;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// "unknown op 'exq' (did you mean 'exp'?)": ops within two edits, or sharing a prefix.
std::string unknown_op_message(const std::string& name) {
  std::string near;
#define SOLDER_OP_NAME(e, n, k, a) n,
  for (std::string cand : {SOLDER_OPS(SOLDER_OP_NAME)}) {
#undef SOLDER_OP_NAME
    bool prefix = name.size() >= 3 && (cand.rfind(name, 0) == 0 || name.rfind(cand, 0) == 0);
    if (edit_distance(name, cand) <= 2 || prefix) near += (near.empty() ? "'" : ", '") + cand + "'";
  }
  std::string m = "unknown op '" + name + "'";
  return near.empty() ? m : m + " (did you mean " + near + "?)";
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& file) : file_(file), toks_(lex_fusion_text(text, file)) {}

  Fusion parse() {
    const Token& kw = next();
    if (!kw.is("fusion")) fail(kw.pos, "expected 'fusion NAME {' at the start, got " + spell(kw));
    f_.set_name(expect_ident("a fusion name").text);
    TextPos open = expect_punct("{").pos;
    while (!peek().is("}")) {
      if (peek().kind == Token::End)
        fail(peek().pos, "missing '}': fusion '" + f_.name() + "' opened at line " + std::to_string(open.line) +
                             " is not closed");
      statement();
    }
    const Token& close = next();
    if (f_.outputs().empty()) fail(close.pos, "fusion '" + f_.name() + "' has no outputs (add 'output NAME')");
    if (peek().kind != Token::End) fail(peek().pos, "unexpected " + spell(peek()) + " after the end of the fusion");
    return std::move(f_);
  }

 private:
  [[noreturn]] void fail(TextPos pos, const std::string& msg) const { throw Error(located(file_, pos) + msg); }

  static std::string spell(const Token& t) { return t.kind == Token::End ? "end of file" : "'" + t.text + "'"; }
  const Token& peek(size_t k = 0) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }
  const Token& next() {
    const Token& t = peek();
    if (p_ < toks_.size() - 1) ++p_;
    return t;
  }
  const Token& expect_punct(const char* c) {
    if (!peek().is(c) || peek().kind != Token::Punct)
      fail(peek().pos, "expected '" + std::string(c) + "', got " + spell(peek()));
    return next();
  }
  const Token& expect_ident(const std::string& what) {
    if (peek().kind != Token::Ident) fail(peek().pos, "expected " + what + ", got " + spell(peek()));
    return next();
  }

  void statement() {
    const Token& first = peek();
    if (first.is("input") && peek(1).kind == Token::Ident) return input_statement();
    if (first.is("output") && peek(1).kind == Token::Ident) return output_statement();
    if (first.kind != Token::Ident) fail(first.pos, "expected a statement (input, output or NAME = op(...)), got " + spell(first));
    node_statement();
  }

  void input_statement() {
    next();
    const Token& name = next();
    expect_punct(":");
    DType t = dtype_token(expect_ident("a dtype"));
    Shape shape = shape_list();
    check_new_name(name);
    try {
      f_.input(name.text, t, std::move(shape));
    } catch (const Error& e) {
      fail(name.pos, e.what());
    }
    file_names_.insert(name.text);
  }

  void output_statement() {
    next();
    do {
      const Token& name = expect_ident("a value name");
      f_.output(lookup(name));
    } while (peek().is(",") && next().is(","));
  }

  void node_statement() {
    std::vector<const Token*> lhs{&next()};
    while (peek().is(",")) {
      next();
      lhs.push_back(&expect_ident("a value name"));
    }
    expect_punct("=");
    const Token& op_tok = expect_ident("an op name");
    std::optional<Op> op = parse_op(op_tok.text);
    if (!op) fail(op_tok.pos, unknown_op_message(op_tok.text));
    expect_punct("(");
    std::vector<int> operands;
    Attrs attrs;
    uint32_t seen = 0;
    bool first_arg = true;
    while (!peek().is(")")) {
      if (!first_arg) expect_punct(",");
      first_arg = false;
      const Token& arg = expect_ident("an operand name or attribute");
      if (peek().is("=")) {
        next();
        attribute(*op, arg, attrs, seen);
      } else {
        if (seen) fail(arg.pos, "operand '" + arg.text + "' after attributes; operands come first");
        operands.push_back(lookup(arg));
      }
    }
    const Token& close = next();
    uint32_t missing = op_info(*op).attrs & ~optional_attrs(*op) & ~seen;
    if (missing) fail(close.pos, std::string(op_name(*op)) + ": missing attribute(s) " + attr_names(missing));
    for (size_t i = 0; i < lhs.size(); ++i) {
      check_new_name(*lhs[i]);
      for (size_t j = 0; j < i; ++j)
        if (lhs[j]->text == lhs[i]->text) fail(lhs[i]->pos, "'" + lhs[i]->text + "' is named twice in one statement");
    }
    std::vector<int> outs;
    try {
      outs = f_.add(*op, operands, attrs);
    } catch (const Error& e) {
      fail(lhs[0]->pos, e.what());
    }
    if (outs.size() != lhs.size())
      fail(lhs[0]->pos, std::string(op_name(*op)) + " produces " + std::to_string(outs.size()) + " value(s), but " +
                            std::to_string(lhs.size()) + " name(s) are given");
    for (size_t i = 0; i < outs.size(); ++i) claim_name(outs[i], lhs[i]->text);
  }

  // Gives `id` the file's name. A cast the builder inserted for promotion may hold that name
  // already (fresh names are "tN"); it moves aside, since the file never refers to it.
  void claim_name(int id, const std::string& name) {
    int holder = f_.find(name);
    if (holder >= 0 && holder != id) {
      std::string aside;
      for (int k = 0; f_.find(aside = name + "_implicit" + std::to_string(k)) >= 0; ++k) {
      }
      f_.rename(holder, aside);
    }
    f_.rename(id, name);
    file_names_.insert(name);
  }

  void check_new_name(const Token& name) {
    if (file_names_.count(name.text)) fail(name.pos, "redefinition of '" + name.text + "'");
  }

  int lookup(const Token& name) {
    int id = file_names_.count(name.text) ? f_.find(name.text) : -1;
    if (id < 0) fail(name.pos, "undefined value '" + name.text + "'");
    return id;
  }

  DType dtype_token(const Token& t) {
    if (auto d = parse_dtype(t.text)) return *d;
    fail(t.pos, "bad dtype '" + t.text + "' (expected bool, i32, i64, f16, bf16, f32, f64, f8e4m3 or f8e5m2)");
  }

  void attribute(Op op, const Token& key, Attrs& a, uint32_t& seen) {
    const AttrName* attr = nullptr;
    for (const auto& cand : kAttrNames)
      if (key.text == cand.name) attr = &cand;
    uint32_t allowed = op_info(op).attrs;
    if (!attr || !(allowed & attr->bit))
      fail(key.pos, std::string(op_name(op)) + " has no attribute '" + key.text + "' (it takes: " + attr_names(allowed) + ")");
    if (seen & attr->bit) fail(key.pos, "duplicate attribute '" + key.text + "'");
    seen |= attr->bit;
    if (peek().is(",") || peek().is(")")) fail(peek().pos, "attribute '" + key.text + "' has no value");
    switch (attr->bit) {
      case kValue: a.value = real(); break;
      case kDType: a.dtype = dtype_token(expect_ident("a dtype")); break;
      case kLo: a.lo = real(); break;
      case kHi: a.hi = real(); break;
      case kAxes: a.axes = int_list(); break;
      case kKeepdim: a.keepdim = boolean(); break;
      case kCorrection: a.correction = integer(); break;
      case kShape: a.shape = shape_list(); break;
      case kAxis: a.axis = integer(); break;
      case kStart:
        if (op == Op::Pad || op == Op::Window) a.bound_start = dim_value(key);
        else a.start = integer();
        break;
      case kEnd:
        if (op == Op::Pad || op == Op::Window) {
          a.bound_end = dim_value(key);
        } else if (peek().is("end") && peek().kind == Token::Ident) {
          next();
          a.end = kSliceToEnd;
        } else {
          a.end = integer();
        }
        break;
      case kStep: a.step = integer(); break;
    }
  }

  double real() {
    bool negative = peek().is("-") && next().is("-");
    const Token& t = next();
    double v;
    if (t.is("inf") && t.kind == Token::Ident) v = INFINITY;
    else if (t.is("nan") && t.kind == Token::Ident) v = NAN;
    else if (t.kind == Token::Number) v = std::strtod(t.text.c_str(), nullptr);
    else fail(t.pos, "expected a number, got " + spell(t));
    return negative ? -v : v;
  }

  int64_t integer() {
    TextPos pos = peek().pos;
    bool negative = peek().is("-") && next().is("-");
    const Token& t = next();
    int64_t v = 0;
    if (t.kind != Token::Number) fail(t.pos, "expected an integer, got " + spell(t));
    auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || end != t.text.data() + t.text.size())
      fail(pos, "expected an integer, got '" + std::string(negative ? "-" : "") + t.text + "'");
    return negative ? -v : v;
  }

  bool boolean() {
    const Token& t = next();
    if (t.kind == Token::Ident && (t.text == "true" || t.text == "false")) return t.text == "true";
    fail(t.pos, "expected true or false, got " + spell(t));
  }

  std::vector<int64_t> int_list() {
    expect_punct("[");
    std::vector<int64_t> xs;
    while (!peek().is("]")) {
      if (!xs.empty()) expect_punct(",");
      xs.push_back(integer());
    }
    next();
    return xs;
  }

  // '[' dim (',' dim)* ']' where a dim is any run of tokens up to ',' or ']' ("S*D", "H+-2").
  // A pad's or window's bound: a size expression up to the ',' or ')' that ends the attribute.
  Dim dim_value(const Token& key) {
    TextPos pos = peek().pos;
    std::string text;
    TextPos end{0, 0};
    for (int depth = 0; depth > 0 || !(peek().is(",") || peek().is(")"));) {
      const Token& t = peek();
      if (t.kind == Token::End || t.is("{") || t.is("}") || t.is("=") || t.is("[") || t.is("]"))
        fail(t.pos, "expected ')' after attribute '" + key.text + "', got " + spell(t));
      depth += t.is("(") - t.is(")");
      const bool w = t.kind == Token::Ident || t.kind == Token::Number;
      if (w && end.line > 0 && (t.pos.line != end.line || t.pos.col != end.col)) text += ' ';
      end = w ? TextPos{t.pos.line, t.pos.col + static_cast<int>(t.text.size())} : TextPos{0, 0};
      text += next().text;
    }
    try {
      return parse_dim(text);
    } catch (const std::exception& e) {
      fail(pos, std::string("bad size '") + text + "': " + e.what());
    }
  }

  Shape shape_list() {
    expect_punct("[");
    Shape s;
    while (!peek().is("]")) {
      if (!s.empty()) expect_punct(",");
      TextPos pos = peek().pos;
      std::string text;
      TextPos end{0, 0};  // where the last word (name or number) ended; line 0: none
      for (int depth = 0; depth > 0 || !(peek().is(",") || peek().is("]"));) {
        const Token& t = peek();
        if (t.kind == Token::End || t.is("{") || t.is("}") || t.is("=") || t.is("["))
          fail(t.pos, "expected ']' to close the size list, got " + spell(t));
        depth += t.is("(") - t.is(")");
        // Two words apart in the source stay apart: `a b` is an error, not the name `ab`.
        const bool w = t.kind == Token::Ident || t.kind == Token::Number;
        if (w && end.line > 0 && (t.pos.line != end.line || t.pos.col != end.col)) text += ' ';
        end = w ? TextPos{t.pos.line, t.pos.col + static_cast<int>(t.text.size())} : TextPos{0, 0};
        text += next().text;
      }
      if (text.empty()) fail(pos, "expected a size");
      try {
        s.push_back(parse_dim(text));
      } catch (const std::exception& e) {  // Error, or std::out_of_range for a huge number
        fail(pos, std::string("bad size '") + text + "': " + e.what());
      }
    }
    next();
    return s;
  }

  std::string file_;
  std::vector<Token> toks_;
  size_t p_ = 0;
  Fusion f_;
  std::set<std::string> file_names_;  // names the file defined so far (not builder-made casts)
};

}  // namespace

Fusion parse_fusion(const std::string& text, const std::string& filename) { return Parser(text, filename).parse(); }

Fusion load_fusion_file(const std::string& path) {
  return parse_fusion(read_bounded_file(path, kMaxProgramBytes, "fusion file"), path);
}

}  // namespace solder
