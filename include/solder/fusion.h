#pragma once
// The tensor-program IR and its C++ builder API.
//
// A Fusion owns a list of Values (typed, symbolically shaped tensors; rank 0 = scalar) and a
// topologically ordered list of Nodes (one op each, one or more output Values). Values are
// referred to by index, never by pointer. Building a node validates its operands and infers
// its outputs' dtype and shape (see infer.cpp); a bad call throws solder::Error that names the
// op, the operands and what was expected.
//
//   Fusion f("example");
//   Tensor x = f.input("x", DType::F16, {Dim::sym("B"), Dim::sym("H")});
//   Tensor w = f.input("w", DType::F16, {Dim::sym("H")});
//   f.output(layer_norm(x, 1, w, std::nullopt, 1e-5));
//
// Semantics worth knowing:
//  * Binary ops broadcast like PyTorch (right-aligned, size-1 dims stretch). Two different
//    symbols never broadcast against each other: "B" vs "H" is an error, not a guess.
//  * Type promotion follows torch.result_type, including its "wrapped number" rule: a constant
//    never widens a tensor of the same category (f16 * 2.0 stays f16). The builder makes the
//    promotion explicit: operands are cast to the common type before the op, so every
//    elementwise node sees operands of one dtype.
//  * Each value is rounded to its dtype: an f16 add is computed in fp32 and rounded once, as in
//    PyTorch eager. Reductions accumulate in fp32 (GPU) / double (reference).
//  * f32/f64 add, sub, mul and div are each rounded once, as eager's one-op kernels round them:
//    kernels never contract a * b + c into one FMA (Inductor's Triton kernels do) and divide
//    rather than multiply by a reciprocal. Approximate on purpose (a few ulp): composites
//    (softmax, norms, gelu, silu, sigmoid), exp, sigmoid and silu whose result is rounded to
//    f16/bf16 (or in f32, where every result of the kernel is), and x / sqrt(statistic) as
//    x * rsqrt.
//  * Integers wrap on overflow (i32/i64 add, sub, mul, neg), as torch's do.
//  * Casts to fp8 follow PyTorch/OCP non-saturating rules: e4m3 overflows to NaN, e5m2 to Inf.
//    Saturation is an explicit clamp before the cast.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "solder/dim.h"
#include "solder/dtype.h"

namespace solder {

// Op table: enum name, text name, kind, attributes used (see Attr bits).
#define SOLDER_OPS(X)                                             \
  X(Constant, "constant", Source, kValue | kDType)                \
  X(Neg, "neg", Unary, 0)                                         \
  X(Abs, "abs", Unary, 0)                                         \
  X(Exp, "exp", Unary, 0)                                         \
  X(Log, "log", Unary, 0)                                         \
  X(Sqrt, "sqrt", Unary, 0)                                       \
  X(Rsqrt, "rsqrt", Unary, 0)                                     \
  X(Reciprocal, "reciprocal", Unary, 0)                           \
  X(Tanh, "tanh", Unary, 0)                                       \
  X(Sigmoid, "sigmoid", Unary, 0)                                 \
  X(Erf, "erf", Unary, 0)                                         \
  X(Sin, "sin", Unary, 0)                                         \
  X(Cos, "cos", Unary, 0)                                         \
  X(Relu, "relu", Unary, 0)                                       \
  X(Gelu, "gelu", Unary, 0)                                       \
  X(GeluTanh, "gelu_tanh", Unary, 0)                              \
  X(Silu, "silu", Unary, 0)                                       \
  X(LogicalNot, "logical_not", Unary, 0)                          \
  X(Add, "add", Binary, 0)                                        \
  X(Sub, "sub", Binary, 0)                                        \
  X(Mul, "mul", Binary, 0)                                        \
  X(Div, "div", Binary, 0)                                        \
  X(Pow, "pow", Binary, 0)                                        \
  X(Maximum, "maximum", Binary, 0)                                \
  X(Minimum, "minimum", Binary, 0)                                \
  X(Eq, "eq", Compare, 0)                                         \
  X(Ne, "ne", Compare, 0)                                         \
  X(Lt, "lt", Compare, 0)                                         \
  X(Le, "le", Compare, 0)                                         \
  X(Gt, "gt", Compare, 0)                                         \
  X(Ge, "ge", Compare, 0)                                         \
  X(LogicalAnd, "logical_and", Logical, 0)                        \
  X(LogicalOr, "logical_or", Logical, 0)                          \
  X(Where, "where", Ternary, 0)                                   \
  X(Clamp, "clamp", Unary, kLo | kHi)                             \
  X(Cast, "cast", Unary, kDType)                                  \
  X(Sum, "sum", Reduction, kAxes | kKeepdim)                      \
  X(Max, "max", Reduction, kAxes | kKeepdim)                      \
  X(Min, "min", Reduction, kAxes | kKeepdim)                      \
  X(Mean, "mean", Reduction, kAxes | kKeepdim)                    \
  X(VarMean, "var_mean", Reduction, kAxes | kKeepdim | kCorrection) \
  X(Expand, "expand", View, kShape)                               \
  X(Reshape, "reshape", View, kShape)                             \
  X(Permute, "permute", View, kAxes)                              \
  X(Squeeze, "squeeze", View, kAxes)                              \
  X(Unsqueeze, "unsqueeze", View, kAxis)                          \
  X(Slice, "slice", View, kAxis | kStart | kEnd | kStep)          \
  X(Cat, "cat", Cat, kAxis)                                       \
  X(Matmul, "matmul", Matmul, 0)                                  \
  X(Linear, "linear", Matmul, 0)                                  \
  X(Pad, "pad", View, kAxis | kStart | kEnd)                      \
  X(Window, "window", Source, kShape | kAxis | kStart | kEnd)     \
  /* Unary ops added later: at the end, so that the ops before keep their enum values (the   \
     structural hash orders commutative operands by them). */                                  \
  X(Log1p, "log1p", Unary, 0)                                     \
  X(Expm1, "expm1", Unary, 0)                                     \
  X(Floor, "floor", Unary, 0)                                     \
  X(Ceil, "ceil", Unary, 0)                                       \
  X(Trunc, "trunc", Unary, 0)                                     \
  X(Round, "round", Unary, 0)

enum class Op : uint8_t {
#define SOLDER_OP_ENUM(e, n, k, a) e,
  SOLDER_OPS(SOLDER_OP_ENUM)
#undef SOLDER_OP_ENUM
};

enum class OpKind : uint8_t { Source, Unary, Binary, Compare, Logical, Ternary, Reduction, View, Cat, Matmul };

// Attribute bits: which fields of Attrs an op uses (and the text format prints, in this order).
enum AttrBit : uint32_t {
  kValue = 1u << 0,       // constant value
  kDType = 1u << 1,       // constant / cast target dtype
  kLo = 1u << 2,          // clamp lower bound (may be -inf)
  kHi = 1u << 3,          // clamp upper bound (may be +inf)
  kAxes = 1u << 4,        // reduction axes / permutation / squeezed axes
  kKeepdim = 1u << 5,     // reductions
  kCorrection = 1u << 6,  // var_mean: Bessel correction (0 = population variance)
  kShape = 1u << 7,       // expand / reshape target; window: its shape
  kAxis = 1u << 8,        // unsqueeze / slice / cat / pad / window
  kStart = 1u << 9,       // slice, window: first index; pad: elements before (pad, window: a size expression)
  kEnd = 1u << 10,        // slice, window: end index; pad: elements after (pad, window: a size expression)
  kStep = 1u << 11,
};

struct OpInfo {
  Op op;
  const char* name;
  OpKind kind;
  uint32_t attrs;
};
const OpInfo& op_info(Op op);
// Element math (unary, binary, compare, logical, ternary): each output element from the
// same-index elements of its (broadcast) operands.
bool is_element_op(Op op);
std::optional<Op> parse_op(const std::string& name);
inline const char* op_name(Op op) { return op_info(op).name; }

constexpr int64_t kSliceToEnd = std::numeric_limits<int64_t>::max();

struct Attrs {
  double value = 0;
  DType dtype = DType::F32;
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  std::vector<int64_t> axes;
  bool keepdim = false;
  int64_t correction = 0;
  Shape shape;
  int64_t axis = 0, start = 0, end = kSliceToEnd, step = 1;
  // pad (elements before / after) and window (first / end index): the bounds as size
  // expressions. Where a bound is constant, `start` / `end` hold its value too (either may be set:
  // inference makes them agree); where it is symbolic (a cat of pieces of sizes H, K+-64), the
  // int field is 0 and every reader takes the Dim (`bounds_at` evaluates them at a binding).
  Dim bound_start = Dim(0), bound_end = Dim(0);
  bool operator==(const Attrs& o) const;
};

struct Value {
  DType dtype;
  Shape shape;
  std::string name;
  int producer = -1;  // node index; -1 for fusion inputs
  // The result of a composite (layer_norm, softmax, ...) whose eager kernel writes contiguous
  // results whatever its input's layout: the layout a new output gets (natural_output_metas).
  bool contiguous_result = false;
  int rank() const { return static_cast<int>(shape.size()); }
};

struct Node {
  Op op;
  std::vector<int> in;
  std::vector<int> out;
  Attrs attrs;
};

class Fusion;

// A handle to a value of a fusion; cheap to copy. Builders find the fusion through it.
class Tensor {
 public:
  Tensor() = default;
  Tensor(Fusion* f, int id) : fusion_(f), id_(id) {}
  Fusion& fusion() const { return *fusion_; }
  int id() const { return id_; }
  const Value& value() const;
  DType dtype() const { return value().dtype; }
  const Shape& shape() const { return value().shape; }
  int rank() const { return value().rank(); }
  const std::string& name() const { return value().name; }
  std::string describe() const;  // "t1 f16[B, H]" for error messages

 private:
  Fusion* fusion_ = nullptr;
  int id_ = -1;
};

class Fusion {
 public:
  explicit Fusion(std::string name = "fusion") : name_(std::move(name)) {}
  // Tensors hold a pointer to their fusion: a copy is a new graph with new handles.
  Fusion(const Fusion&) = default;
  Fusion& operator=(const Fusion&) = default;

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  Tensor input(const std::string& name, DType dtype, Shape shape);
  void output(const Tensor& t);
  void output(int value_id);

  // Appends a node after validating operands and inferring outputs (throws solder::Error).
  std::vector<Tensor> add(Op op, const std::vector<Tensor>& in, const Attrs& attrs = {});
  std::vector<int> add(Op op, const std::vector<int>& in, const Attrs& attrs = {});

  const std::vector<Value>& values() const { return values_; }
  const Value& value(int id) const { return values_.at(id); }
  void rename(int id, const std::string& name);
  void mark_contiguous_result(int id) { values_.at(id).contiguous_result = true; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<int>& inputs() const { return inputs_; }
  const std::vector<int>& outputs() const { return outputs_; }
  Tensor tensor(int id) { return Tensor(this, id); }
  int find(const std::string& value_name) const;  // -1 if none

  // Structural hash: ops, attributes, dtypes, symbolic shapes, wiring. Names do not count.
  uint64_t hash() const;

 private:
  std::string fresh_name();
  void align_broadcast_dims(std::vector<int>& in);
  std::string name_;
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<int> inputs_, outputs_;
  std::unordered_map<std::string, int> by_name_;  // value name -> id: building stays linear
};

// Checks the invariants every pass must keep: operands precede uses, each node's outputs are
// what inference says, outputs exist. Throws solder::Error describing the first violation.
void verify(const Fusion& f);

// Binds each input's symbolic dims to the concrete sizes given (by input order). Throws an
// error naming the input and dim when a size disagrees with its declaration or another input.
// Then checks every value of the fusion under those sizes, before anything runs: each dim
// evaluates without overflow to a size >= 0, and each tensor's bytes fit int64 and the limit
// of one tensor (src/ir/limits.h); an error names the value, its dim and the sizes.
Bindings bind_shapes(const Fusion& f, const std::vector<std::vector<int64_t>>& input_sizes);
std::vector<int64_t> eval_shape(const Shape& s, const Bindings& b);
// A pad or window node with its bounds evaluated under `b` into attrs.start / end (what
// evaluators of concrete tensors read: the reference, views as metadata); any other node as is.
Node bounds_at(const Node& n, const Bindings& b);

// ---- builder functions -------------------------------------------------------------------
Tensor constant(Fusion& f, double v, DType t);

#define SOLDER_DECLARE_UNARY(fn) Tensor fn(const Tensor& x);
SOLDER_DECLARE_UNARY(neg) SOLDER_DECLARE_UNARY(abs) SOLDER_DECLARE_UNARY(exp)
SOLDER_DECLARE_UNARY(log) SOLDER_DECLARE_UNARY(sqrt) SOLDER_DECLARE_UNARY(rsqrt)
SOLDER_DECLARE_UNARY(reciprocal) SOLDER_DECLARE_UNARY(tanh) SOLDER_DECLARE_UNARY(sigmoid)
SOLDER_DECLARE_UNARY(erf) SOLDER_DECLARE_UNARY(sin) SOLDER_DECLARE_UNARY(cos)
SOLDER_DECLARE_UNARY(relu) SOLDER_DECLARE_UNARY(gelu) SOLDER_DECLARE_UNARY(gelu_tanh)
SOLDER_DECLARE_UNARY(silu) SOLDER_DECLARE_UNARY(logical_not) SOLDER_DECLARE_UNARY(log1p)
SOLDER_DECLARE_UNARY(expm1) SOLDER_DECLARE_UNARY(floor) SOLDER_DECLARE_UNARY(ceil)
SOLDER_DECLARE_UNARY(trunc) SOLDER_DECLARE_UNARY(round)
#undef SOLDER_DECLARE_UNARY

#define SOLDER_DECLARE_BINARY(fn)                 \
  Tensor fn(const Tensor& a, const Tensor& b);    \
  Tensor fn(const Tensor& a, double b);           \
  Tensor fn(double a, const Tensor& b);
SOLDER_DECLARE_BINARY(add) SOLDER_DECLARE_BINARY(sub) SOLDER_DECLARE_BINARY(mul)
SOLDER_DECLARE_BINARY(div) SOLDER_DECLARE_BINARY(pow) SOLDER_DECLARE_BINARY(maximum)
SOLDER_DECLARE_BINARY(minimum) SOLDER_DECLARE_BINARY(eq) SOLDER_DECLARE_BINARY(ne)
SOLDER_DECLARE_BINARY(lt) SOLDER_DECLARE_BINARY(le) SOLDER_DECLARE_BINARY(gt)
SOLDER_DECLARE_BINARY(ge) SOLDER_DECLARE_BINARY(logical_and) SOLDER_DECLARE_BINARY(logical_or)
#undef SOLDER_DECLARE_BINARY

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator+(const Tensor& a, double b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, double b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, double b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, double b) { return div(a, b); }
inline Tensor operator*(double a, const Tensor& b) { return mul(a, b); }
inline Tensor operator-(const Tensor& a) { return neg(a); }

Tensor where(const Tensor& c, const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& x, double lo, double hi);
Tensor cast(const Tensor& x, DType t);

// Reductions: axes may be negative; an empty list reduces every axis.
Tensor sum(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
Tensor max(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
Tensor min(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
inline Tensor amax(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false) {
  return max(x, std::move(axes), keepdim);
}
Tensor mean(const Tensor& x, std::vector<int64_t> axes = {}, bool keepdim = false);
struct VarMean {
  Tensor var, mean;
};
VarMean var_mean(const Tensor& x, std::vector<int64_t> axes, int64_t correction = 1, bool keepdim = false);
Tensor var(const Tensor& x, std::vector<int64_t> axes, int64_t correction = 1, bool keepdim = false);

// Views: metadata only when they reach a segment boundary.
Tensor expand(const Tensor& x, Shape shape);
Tensor reshape(const Tensor& x, Shape shape);  // one entry may be -1
Tensor permute(const Tensor& x, std::vector<int64_t> dims);
Tensor transpose(const Tensor& x, int64_t a, int64_t b);
Tensor squeeze(const Tensor& x, std::vector<int64_t> axes);
Tensor unsqueeze(const Tensor& x, int64_t axis);
Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t end = kSliceToEnd, int64_t step = 1);
Tensor select(const Tensor& x, int64_t axis, int64_t index);  // slice + squeeze
Tensor cat(const std::vector<Tensor>& xs, int64_t axis);
// x with `before` and `after` zeros (false) added along `axis` (constants; a kernel reads it as a
// masked view of x, never copied).
Tensor pad(const Tensor& x, int64_t axis, int64_t before, int64_t after);
Tensor pad(const Tensor& x, int64_t axis, const Dim& before, const Dim& after);

Tensor matmul(const Tensor& a, const Tensor& b);
Tensor linear(const Tensor& x, const Tensor& w, std::optional<Tensor> bias = std::nullopt);

// Composites (src/ops), built from the primitives above. Low-precision inputs are computed in
// fp32 and the result cast back, as PyTorch does. `norm_axes` = number of trailing axes.
Tensor layer_norm(const Tensor& x, int norm_axes, std::optional<Tensor> weight,
                  std::optional<Tensor> bias, double eps = 1e-5);
Tensor rms_norm(const Tensor& x, int norm_axes, std::optional<Tensor> weight, double eps = 1e-6);
Tensor softmax(const Tensor& x, int64_t axis);
Tensor log_softmax(const Tensor& x, int64_t axis);

}  // namespace solder
