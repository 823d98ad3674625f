#include "solder/fusion.h"

#include <algorithm>
#include <cstring>

#include "ir/infer.h"
#include "ir/limits.h"
#include "solder/error.h"

namespace solder {

namespace {
constexpr OpInfo kOps[] = {
#define SOLDER_OP_ROW(e, n, k, a) {Op::e, n, OpKind::k, a},
    SOLDER_OPS(SOLDER_OP_ROW)
#undef SOLDER_OP_ROW
};

// PyTorch's three priorities for result_type: dimensioned tensors > rank-0 tensors > constants.
enum Priority { kDimensioned, kZeroDim, kWrapped };

Priority priority(const Fusion& f, int id) {
  const Value& v = f.value(id);
  if (v.producer >= 0 && f.nodes()[v.producer].op == Op::Constant) return kWrapped;
  return v.rank() == 0 ? kZeroDim : kDimensioned;
}

DType result_type(const Fusion& f, const std::vector<int>& ids) {
  std::optional<DType> group[3];
  for (int id : ids) {
    auto p = priority(f, id);
    DType t = f.value(id).dtype;
    group[p] = group[p] ? promote_types(*group[p], t) : t;
  }
  std::optional<DType> r;
  for (int p = kDimensioned; p <= kWrapped; ++p) {
    if (!group[p]) continue;
    if (!r) r = group[p];
    else if (dtype_category(*group[p]) > dtype_category(*r))
      r = p == kWrapped ? (dtype_category(*group[p]) == 2 ? DType::F32 : DType::I64) : *group[p];
  }
  return *r;
}

bool is_float_math(Op op) {
  switch (op) {
    case Op::Exp: case Op::Log: case Op::Sqrt: case Op::Rsqrt: case Op::Reciprocal:
    case Op::Tanh: case Op::Sigmoid: case Op::Erf: case Op::Sin: case Op::Cos:
    case Op::Gelu: case Op::GeluTanh: case Op::Silu: case Op::Log1p: case Op::Expm1:
      return true;
    default: return false;
  }
}

uint64_t fnv(uint64_t h, const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}
template <class T>
uint64_t fnv(uint64_t h, const T& v) {
  return fnv(h, &v, sizeof(v));
}
uint64_t fnv(uint64_t h, const std::string& s) { return fnv(fnv(h, s.data(), s.size()), s.size()); }
}  // namespace

const OpInfo& op_info(Op op) { return kOps[static_cast<int>(op)]; }

bool is_element_op(Op op) {
  const OpKind k = op_info(op).kind;
  return k == OpKind::Unary || k == OpKind::Binary || k == OpKind::Compare || k == OpKind::Logical || k == OpKind::Ternary;
}

std::optional<Op> parse_op(const std::string& name) {
  for (const auto& o : kOps)
    if (name == o.name) return o.op;
  return std::nullopt;
}

bool Attrs::operator==(const Attrs& o) const {
  auto same_double = [](double a, double b) { return a == b || (a != a && b != b); };
  return same_double(value, o.value) && dtype == o.dtype && same_double(lo, o.lo) &&
         same_double(hi, o.hi) && axes == o.axes && keepdim == o.keepdim &&
         correction == o.correction && shape == o.shape && axis == o.axis && start == o.start &&
         end == o.end && step == o.step && bound_start == o.bound_start && bound_end == o.bound_end;
}

const Value& Tensor::value() const {
  if (!fusion_) throw Error("use of an empty Tensor handle");
  return fusion_->value(id_);
}

std::string Tensor::describe() const {
  const Value& v = value();
  return v.name + " " + std::string(dtype_name(v.dtype)) + shape_str(v.shape);
}

std::string Fusion::fresh_name() {
  for (size_t n = values_.size();; ++n) {
    std::string s = std::string("t").append(std::to_string(n));
    if (find(s) < 0) return s;
  }
}

int Fusion::find(const std::string& value_name) const {
  auto it = by_name_.find(value_name);
  return it == by_name_.end() ? -1 : it->second;
}

void Fusion::rename(int id, const std::string& name) {
  int other = find(name);
  if (other >= 0 && other != id) throw Error("the name '" + name + "' is already used in fusion " + name_);
  Value& v = values_.at(id);
  if (auto it = by_name_.find(v.name); it != by_name_.end() && it->second == id) by_name_.erase(it);
  v.name = name;
  by_name_[name] = id;
}

Tensor Fusion::input(const std::string& name, DType dtype, Shape shape) {
  if (find(name) >= 0) throw Error("input '" + name + "': the name is already used in fusion " + name_);
  if (shape.size() > static_cast<size_t>(kMaxRank))
    throw Error("input '" + name + "' has rank " + std::to_string(shape.size()) + ", more than the " +
                std::to_string(kMaxRank) + " dims a tensor may have");
  for (const auto& d : shape) {
    int64_t c = 1;
    std::vector<Dim> factors;
    if (d.as_product(c, factors) && c < 0)  // -3, B*-2; a sum such as H+-2 is checked at bind time
      throw Error("input '" + name + "': negative size " + d.str() + " in " + shape_str(shape));
  }
  values_.push_back(Value{dtype, std::move(shape), name, -1});
  int id = static_cast<int>(values_.size()) - 1;
  by_name_[name] = id;
  inputs_.push_back(id);
  return Tensor(this, id);
}

void Fusion::output(const Tensor& t) {
  if (&t.fusion() != this) throw Error("output: the tensor " + t.describe() + " belongs to another fusion");
  output(t.id());
}

void Fusion::output(int id) {
  if (id < 0 || id >= static_cast<int>(values_.size())) throw Error("output: no value with id " + std::to_string(id));
  if (std::find(outputs_.begin(), outputs_.end(), id) == outputs_.end()) outputs_.push_back(id);
}

std::vector<Tensor> Fusion::add(Op op, const std::vector<Tensor>& in, const Attrs& attrs) {
  std::vector<int> ids;
  for (const auto& t : in) {
    if (&t.fusion() != this)
      throw Error(std::string(op_name(op)) + ": operand " + t.describe() + " belongs to another fusion");
    ids.push_back(t.id());
  }
  std::vector<Tensor> out;
  for (int id : add(op, ids, attrs)) out.emplace_back(this, id);
  return out;
}

std::vector<int> Fusion::add(Op op, const std::vector<int>& in_ids, const Attrs& attrs_in) {
  for (int id : in_ids)
    if (id < 0 || id >= static_cast<int>(values_.size()))
      throw Error(std::string(op_name(op)) + ": operand id " + std::to_string(id) + " does not exist");
  std::vector<int> in = in_ids;
  const OpKind kind = op_info(op).kind;
  auto cast_to = [&](int& id, DType t) {
    if (values_[id].dtype == t) return;
    Attrs a;
    a.dtype = t;
    id = add(Op::Cast, std::vector<int>{id}, a)[0];
  };
  // Make PyTorch's implicit promotion explicit, so every later stage sees uniform operands.
  if (kind == OpKind::Binary || kind == OpKind::Compare || kind == OpKind::Cat || kind == OpKind::Matmul) {
    DType t = result_type(*this, in);
    if ((op == Op::Div || op == Op::Pow) && !is_floating(t)) t = DType::F32;
    for (int& id : in) cast_to(id, t);
  } else if (kind == OpKind::Ternary && in.size() == 3) {
    DType t = result_type(*this, {in[1], in[2]});
    cast_to(in[1], t);
    cast_to(in[2], t);
  }
  if (kind == OpKind::Binary || kind == OpKind::Compare || kind == OpKind::Ternary) align_broadcast_dims(in); else if (is_float_math(op) && in.size() == 1 && !is_floating(values_[in[0]].dtype)) {
    cast_to(in[0], DType::F32);
  }
  Attrs attrs = attrs_in;
  std::vector<Inferred> outs = infer(*this, op, in, attrs);
  Node n{op, in, {}, attrs};
  int node_index = static_cast<int>(nodes_.size());
  for (auto& o : outs)
    if (o.shape.size() > static_cast<size_t>(kMaxRank))
      throw Error(std::string(op_name(op)) + ": the result would have rank " + std::to_string(o.shape.size()) +
                  ", more than the " + std::to_string(kMaxRank) + " dims a tensor may have");
  for (auto& o : outs) {
    std::string fresh = fresh_name();
    values_.push_back(Value{o.dtype, std::move(o.shape), fresh, node_index});
    n.out.push_back(static_cast<int>(values_.size()) - 1);
    by_name_[fresh] = n.out.back();
  }
  nodes_.push_back(std::move(n));
  return nodes_.back().out;
}

// Dims of elementwise operands that differ as expressions but may be equal once sizes are bound
// (`min(H, 32)` against `min(H, 64) - min(H, 32)`, slices of symbolic dims) are assumed equal, as
// torch.compile's dynamic shapes assume and guard: the later operand is reshaped to the first's
// dim, and bind_shapes checks the reshape's element count, naming it, before anything runs.
// Operands computed by element math or reductions come first as the reference, so the reshape
// falls on an input or a view (metadata), not on a kernel's result: a view of a kernel's result
// would split silu(a) * b from b * silu(a) into two kernels. Dims that are plain products
// (constants, symbols: B against H) compare as expressions, so broadcast_shapes refuses those that
// differ; min and ceildiv factors (x[:, 0::2] against x[:, 1::2] of a symbolic H) are assumed.

void Fusion::align_broadcast_dims(std::vector<int>& in) {
  size_t rank = 0;
  for (int id : in) rank = std::max(rank, values_[id].shape.size());
  auto computed = [&](int id) {
    const int p = values_[id].producer;
    return p >= 0 && op_info(nodes_[p].op).kind != OpKind::View && nodes_[p].op != Op::Constant;
  };
  std::vector<size_t> order(in.size());
  for (size_t i = 0; i < in.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](size_t i) { return computed(in[i]); });
  for (size_t k = 1; k < in.size(); ++k) {
    Shape want = values_[in[order[k]]].shape;
    bool changed = false;
    for (size_t d = 0; d < want.size(); ++d) {
      const size_t at = rank - want.size() + d;  // aligned from the right
      if (want[d].is_one()) continue;
      for (size_t j = 0; j < k; ++j) {
        const Shape& ref = values_[in[order[j]]].shape;
        if (at < rank - ref.size()) continue;
        const Dim& r = ref[at - (rank - ref.size())];
        if (r.is_one()) continue;
        if (!(r == want[d]) && (!r.is_plain_product() || !want[d].is_plain_product())) {
          want[d] = r;
          changed = true;
        }
        break;
      }
    }
    if (changed) {
      Attrs a;
      a.shape = want;
      in[order[k]] = add(Op::Reshape, std::vector<int>{in[order[k]]}, a)[0];
    }
  }
}

uint64_t Fusion::hash() const {
  uint64_t h = 1469598103934665603ull;
  for (int id : inputs_) {
    h = fnv(h, values_[id].dtype);
    h = fnv(h, shape_str(values_[id].shape));
  }
  for (const auto& n : nodes_) {
    h = fnv(h, n.op);
    for (int i : n.in) h = fnv(h, i);
    for (int o : n.out) h = fnv(h, o);
    const Attrs& a = n.attrs;
    h = fnv(h, a.value); h = fnv(h, a.dtype); h = fnv(h, a.lo); h = fnv(h, a.hi);
    for (auto x : a.axes) h = fnv(h, x);
    h = fnv(h, a.keepdim); h = fnv(h, a.correction); h = fnv(h, shape_str(a.shape));
    h = fnv(h, a.axis); h = fnv(h, a.start); h = fnv(h, a.end); h = fnv(h, a.step);
    if (!a.bound_start.is_const() || !a.bound_end.is_const())
      h = fnv(h, a.bound_start.str() + ":" + a.bound_end.str());
  }
  for (int id : outputs_) h = fnv(h, id);
  return h;
}

void verify(const Fusion& f) {
  const auto& vals = f.values();
  std::vector<char> defined(vals.size(), 0);
  for (int id : f.inputs()) {
    if (vals[id].producer != -1) throw Error("verify: input " + vals[id].name + " has a producer");
    defined[id] = 1;
  }
  for (size_t ni = 0; ni < f.nodes().size(); ++ni) {
    const Node& n = f.nodes()[ni];
    for (int i : n.in)
      if (i < 0 || i >= static_cast<int>(vals.size()) || !defined[i])
        throw Error("verify: node " + std::to_string(ni) + " (" + op_name(n.op) + ") uses a value before it is defined");
    Attrs a = n.attrs;
    auto outs = infer(f, n.op, n.in, a);
    if (outs.size() != n.out.size()) throw Error("verify: node " + std::to_string(ni) + " has the wrong number of outputs");
    for (size_t k = 0; k < outs.size(); ++k) {
      const Value& v = vals[n.out[k]];
      if (v.dtype != outs[k].dtype || !(v.shape == outs[k].shape) || v.producer != static_cast<int>(ni))
        throw Error("verify: value " + v.name + " disagrees with what " + op_name(n.op) + " produces");
      defined[n.out[k]] = 1;
    }
  }
  if (f.outputs().empty()) throw Error("verify: fusion " + f.name() + " has no outputs");
  for (int o : f.outputs())
    if (!defined[o]) throw Error("verify: output " + vals[o].name + " is never defined");
}

namespace {
std::string bound_sizes(const Bindings& b) {
  std::string s;
  for (const auto& [k, v] : b) s += (s.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return s.empty() ? "no sizes bound" : s;
}

// Every value's size under `b`, so no executor meets a wrapped, negative or absurd size.
// A reshape whose sizes could not be compared as expressions (sums in them) is checked here.
void check_reshape_counts(const Fusion& f, const Bindings& b) {
  for (const Node& n : f.nodes()) {
    if (n.op != Op::Reshape) continue;
    const Value &x = f.value(n.in[0]), &y = f.value(n.out[0]);
    int64_t have = 1, want = 1;
    for (const auto& d : x.shape) have *= d.eval(b);  // each checked by check_value_sizes
    for (const auto& d : y.shape) want *= d.eval(b);
    if (have != want)
      throw Error("reshape(" + x.name + " " + shape_str(x.shape) + ") to " + shape_str(y.shape) + ": " + x.name + " holds " +
                  std::to_string(have) + " elements, the target " + std::to_string(want) + ", for " + bound_sizes(b) +
                  " (a reshape the builder made where operands' dims differ as expressions: they must be equal)");
  }
}

// Symbolic pad and window bounds (a cat of pieces of symbolic sizes, passes/cat_pieces.cpp):
// a pad adds >= 0 elements on each side, a window lies inside its dim.
void check_window_bounds(const Fusion& f, const Bindings& b) {
  for (const Node& n : f.nodes()) {
    if (n.op != Op::Pad && n.op != Op::Window) continue;
    const bool constant = n.attrs.bound_start.is_const() && n.attrs.bound_end.is_const() &&
                          (n.op == Op::Pad || n.attrs.shape.at(n.attrs.axis).is_const());
    if (constant) continue;  // checked when built
    const int64_t s = n.attrs.bound_start.eval(b), e = n.attrs.bound_end.eval(b);
    const std::string what = std::string(op_name(n.op)) + " " + f.value(n.out[0]).name + " (start=" +
                             n.attrs.bound_start.str() + ", end=" + n.attrs.bound_end.str() + ")";
    if (n.op == Op::Pad && (s < 0 || e < 0))
      throw Error(what + ": pads " + std::to_string(s) + " and " + std::to_string(e) + " elements for " + bound_sizes(b));
    if (n.op == Op::Window) {
      const int64_t size = n.attrs.shape.at(n.attrs.axis).eval(b);
      if (s < 0 || e < s || e > size)
        throw Error(what + ": the window [" + std::to_string(s) + ", " + std::to_string(e) + ") is not inside its dim of " +
                    std::to_string(size) + " for " + bound_sizes(b));
    }
  }
}

void check_value_sizes(const Fusion& f, const Bindings& b) {
  const int64_t limit = max_tensor_bytes();
  for (const Value& v : f.values()) {
    auto what = [&] {  // built only for a message
      return (v.producer < 0 ? "input " : "value ") + v.name +
             (v.producer < 0 ? "" : " (" + std::string(op_name(f.nodes()[v.producer].op)) + ")") + " " +
             std::string(dtype_name(v.dtype)) + shape_str(v.shape);
    };
    int64_t n = 1;
    for (size_t d = 0; d < v.shape.size(); ++d) {
      int64_t size = 0;
      try {
        size = v.shape[d].eval(b);
      } catch (const Error& e) {
        throw Error(what() + ": dim " + std::to_string(d) + ": " + e.what());
      }
      if (size < 0)
        throw Error(what() + ": dim " + std::to_string(d) + " (" + v.shape[d].str() + ") is " + std::to_string(size) +
                    " for " + bound_sizes(b));
      if (__builtin_mul_overflow(n, size, &n))
        throw Error(what() + ": the element count overflows int64 for " + bound_sizes(b));
    }
    int64_t bytes = 0;
    if (__builtin_mul_overflow(n, int64_t{dtype_size(v.dtype)}, &bytes) || bytes > limit)
      check_tensor_bytes(n, dtype_size(v.dtype), what() + " for " + bound_sizes(b));
  }
}
}  // namespace

Bindings bind_shapes(const Fusion& f, const std::vector<std::vector<int64_t>>& sizes) {
  if (sizes.size() != f.inputs().size())
    throw Error("fusion " + f.name() + " takes " + std::to_string(f.inputs().size()) + " inputs, got " +
                std::to_string(sizes.size()));
  Bindings b;
  // First pass binds plain symbols; second checks every dim (incl. constants and expressions).
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      const Value& v = f.value(f.inputs()[i]);
      if (sizes[i].size() != v.shape.size())
        throw Error("input " + v.name + " is declared " + shape_str(v.shape) + " (rank " +
                    std::to_string(v.rank()) + ") but got rank " + std::to_string(sizes[i].size()));
      for (size_t d = 0; d < sizes[i].size(); ++d) {
        const Dim& dim = v.shape[d];
        int64_t got = sizes[i][d];
        if (got < 0) throw Error("input " + v.name + ": negative size " + std::to_string(got));
        std::vector<std::string> syms;
        dim.collect_symbols(syms);
        if (pass == 0) {
          if (syms.size() == 1 && dim.str() == syms[0] && !b.count(syms[0])) b[syms[0]] = got;
          continue;
        }
        int64_t want = 0;
        try {
          want = dim.eval(b);
        } catch (const Error& e) {
          throw Error("input " + v.name + " is declared " + shape_str(v.shape) + ": dim " + std::to_string(d) + ": " + e.what());
        }
        if (want != got)
          throw Error("input " + v.name + " is declared " + shape_str(v.shape) + ": dim " + std::to_string(d) +
                      " (" + dim.str() + ") is " + std::to_string(want) + " from the other inputs, got " +
                      std::to_string(got));
      }
    }
  }
  check_value_sizes(f, b);
  check_reshape_counts(f, b);
  check_window_bounds(f, b);
  return b;
}

Node bounds_at(const Node& n, const Bindings& b) {
  Node r = n;
  if (n.op == Op::Pad || n.op == Op::Window) {
    r.attrs.start = n.attrs.bound_start.eval(b);
    r.attrs.end = n.attrs.bound_end.eval(b);
  }
  return r;
}

std::vector<int64_t> eval_shape(const Shape& s, const Bindings& b) {
  std::vector<int64_t> r;
  for (const auto& d : s) r.push_back(d.eval(b));
  return r;
}

}  // namespace solder
