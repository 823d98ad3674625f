#pragma once
// Symbolic tensor sizes. A Dim is a small immutable expression: a constant, a named symbol
// (bound at run time from the inputs' shapes), a sum/product of Dims, or min(a, b) and
// ceildiv(a, b) (what a slice past the end of a symbolic dim leaves: torch clamps). Kernels never see
// Dims: they receive the evaluated sizes as arguments, which is what lets one compiled kernel
// serve every size ("symbolic shapes"). Sums are kept in one form (like terms combined, terms in
// one order, the constant last), so sums that mean the same are equal: 2+W and W+1+1 are W+2.
//
//   Dim b = Dim::sym("B"), h = Dim::sym("H");
//   Dim n = b * h;                    // prints "B*H"
//   n.eval({{"B", 8}, {"H", 5140}})   // 41120
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace solder {

using Bindings = std::map<std::string, int64_t>;

class Dim {
 public:
  Dim() : Dim(int64_t{1}) {}
  Dim(int64_t v);  // NOLINT: constants convert implicitly, so {8192, Dim::sym("H")} reads well
  Dim(int v) : Dim(int64_t{v}) {}
  // `name` must be an identifier (letters, digits, '_'), else solder::Error: the text format
  // could not spell it.
  static Dim sym(std::string name);
  static Dim min(const Dim& a, const Dim& b);
  static Dim ceildiv(const Dim& a, const Dim& b);  // sizes are >= 0: ceil(a / b), b > 0

  bool is_const() const;
  std::optional<int64_t> const_value() const;
  bool is_one() const { return const_value() == 1; }
  // Throws solder::Error naming the missing symbol, or the expression when it overflows int64.
  int64_t eval(const Bindings& b) const;
  std::string str() const;
  void collect_symbols(std::vector<std::string>& out) const;
  // c * f1 * f2 * ... with symbols or opaque terms (min, ceildiv) as factors, sorted by their
  // text; false when the expression holds a sum (or the constant overflows).
  bool as_product(int64_t& c, std::vector<Dim>& factors) const;
  // A constant times plain symbols (8192, B*H): two such dims are equal only as expressions.
  // Sums, min and ceildiv (slices of symbolic dims) may be equal once sizes are bound.
  bool is_plain_product() const;

  // Expressions deeper than kMaxDimDepth (src/ir/limits.h) are an error: printing, parsing
  // and evaluating them recurse.
  friend Dim operator+(const Dim& a, const Dim& b);
  friend Dim operator*(const Dim& a, const Dim& b);
  friend bool operator==(const Dim& a, const Dim& b) { return a.str() == b.str(); }

 struct Node;  // opaque: defined in dim.cpp

 private:
  explicit Dim(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  std::shared_ptr<const Node> node_;
};

using Shape = std::vector<Dim>;
std::string shape_str(const Shape& s);  // "[B, 768]"
// Parses "B", "768", "S*D", "H+-2", "min(B, 100)", "ceildiv(B, 2)". Throws solder::Error.
Dim parse_dim(const std::string& text);

}  // namespace solder
