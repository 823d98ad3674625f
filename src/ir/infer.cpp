#include "ir/infer.h"

#include <algorithm>
#include <numeric>

#include "ir/limits.h"
#include "solder/error.h"

namespace solder {

namespace {

std::string describe(const Fusion& f, int id) {
  const Value& v = f.value(id);
  return v.name + " " + std::string(dtype_name(v.dtype)) + shape_str(v.shape);
}

std::string operands(const Fusion& f, const std::vector<int>& in) {
  std::string s;
  for (size_t i = 0; i < in.size(); ++i) s += (i ? ", " : "") + describe(f, in[i]);
  return s;
}

[[noreturn]] void fail(const Fusion& f, Op op, const std::vector<int>& in, const std::string& why) {
  throw Error(std::string(op_name(op)) + "(" + operands(f, in) + "): " + why);
}

// Pad and window bounds: the int fields and the Dims agree where a bound is constant (either
// may be the one set: builders of constant pads set the ints), and the ints are 0 where it is
// symbolic.
void sync_bound(const Fusion& f, Op op, const std::vector<int>& in, int64_t& v, Dim& d, const char* name) {
  const auto c = d.const_value();
  if (!c) {
    v = 0;
  } else if (*c == 0) {
    d = Dim(v);
  } else if (v == 0) {
    v = *c;
  } else if (v != *c) {
    fail(f, op, in, std::string(name) + " is " + std::to_string(v) + " and " + d.str());
  }
}

void sync_bounds(const Fusion& f, Op op, const std::vector<int>& in, Attrs& a) {
  if (a.end == kSliceToEnd) a.end = 0;  // Attrs' default (a slice's): not set
  sync_bound(f, op, in, a.start, a.bound_start, "start");
  sync_bound(f, op, in, a.end, a.bound_end, "end");
}

int64_t norm_axis(const Fusion& f, Op op, const std::vector<int>& in, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank)
    fail(f, op, in, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

// A pure product as (constant factor, factors sorted by text); ok = false if it has a sum.
struct Product {
  int64_t c = 1;
  std::vector<Dim> factors;
  bool ok = true;
  void mul(const Dim& d) { ok = ok && d.as_product(c, factors); }
  std::vector<std::string> names() const {
    std::vector<std::string> r;
    for (const auto& d : factors) r.push_back(d.str());
    return r;
  }
};

Dim product_dim(int64_t c, const std::vector<Dim>& factors) {
  Dim d(c);
  for (const auto& f : factors) d = d * f;
  return d;
}

// A size that is negative for every positive binding: a negative constant, or a product with
// a negative constant factor (B*-2). Sums (H+-2) may be fine and are checked at bind time.
bool surely_negative(const Dim& d) {
  Product p;
  p.mul(d);
  return p.ok && p.c < 0;
}

}  // namespace

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const Dim* da = i < n - a.size() ? nullptr : &a[i - (n - a.size())];
    const Dim* db = i < n - b.size() ? nullptr : &b[i - (n - b.size())];
    if (!da) out[i] = *db;
    else if (!db) out[i] = *da;
    else if (da->is_one()) out[i] = *db;
    else if (db->is_one() || *da == *db) out[i] = *da;
    else
      throw Error(what + ": cannot broadcast " + shape_str(a) + " with " + shape_str(b) + ": dim " +
                  std::to_string(static_cast<int64_t>(i) - static_cast<int64_t>(n)) + " is " +
                  da->str() + " vs " + db->str());
  }
  return out;
}

std::vector<Inferred> infer(const Fusion& f, Op op, const std::vector<int>& in, Attrs& attrs) {
  const OpInfo& info = op_info(op);
  // "add(a f32[B, 5], b f32[6])": broadcast errors name the operands too.
  const std::string call = std::string(op_name(op)) + "(" + operands(f, in) + ")";
  auto need = [&](size_t n) {
    if (in.size() != n)
      fail(f, op, in, "expected " + std::to_string(n) + " operand(s), got " + std::to_string(in.size()));
  };
  auto V = [&](size_t i) -> const Value& { return f.value(in[i]); };
  auto same_dtype = [&]() {
    for (size_t i = 1; i < in.size(); ++i)
      if (V(i).dtype != V(0).dtype)
        fail(f, op, in, "operands must have one dtype after promotion (the builder inserts casts)");
  };

  switch (info.kind) {
    case OpKind::Source:
      need(0);
      if (op == Op::Window) {
        // True where the index along `axis` is in [start, end): a cat's pieces in one kernel.
        const int r = static_cast<int>(attrs.shape.size());
        if (r == 0) fail(f, op, in, "a window needs a shape of rank >= 1");
        if (attrs.axis < -r || attrs.axis >= r) fail(f, op, in, "axis " + std::to_string(attrs.axis) + " is out of range");
        if (attrs.axis < 0) attrs.axis += r;
        sync_bounds(f, op, in, attrs);
        const auto n = attrs.shape[attrs.axis].const_value();
        const bool symbolic = !attrs.bound_start.is_const() || !attrs.bound_end.is_const();
        if (!symbolic && (attrs.start < 0 || attrs.end < attrs.start || (n && attrs.end > *n)))
          fail(f, op, in, "a window needs 0 <= start <= end <= its dim");
        // Symbolic bounds, or constant ones in a symbolic dim's end: checked when sizes are bound.
        return {{DType::Bool, attrs.shape}};
      }
      return {{attrs.dtype, {}}};
    case OpKind::Unary: {
      need(1);
      DType t = V(0).dtype;
      if (op == Op::Cast) return {{attrs.dtype, V(0).shape}};
      if (op == Op::LogicalNot) return {{DType::Bool, V(0).shape}};
      if (op == Op::Clamp) {
        if (t == DType::Bool) fail(f, op, in, "expected a numeric operand, got bool");
        if (attrs.lo > attrs.hi) fail(f, op, in, "lo > hi");
        return {{t, V(0).shape}};
      }
      bool keeps_int = op == Op::Neg || op == Op::Abs || op == Op::Relu || op == Op::Floor || op == Op::Ceil ||
                       op == Op::Trunc || op == Op::Round;
      if (!is_floating(t) && !keeps_int)
        fail(f, op, in, "expected a floating operand (the builder casts integers to f32)");
      if (t == DType::Bool) fail(f, op, in, "expected a numeric operand, got bool");
      if (is_fp8(t)) fail(f, op, in, "fp8 values support only casts; cast to f32 first");
      return {{t, V(0).shape}};
    }
    case OpKind::Binary:
    case OpKind::Compare:
    case OpKind::Logical: {
      need(2);
      if (info.kind != OpKind::Logical) same_dtype();
      if (info.kind == OpKind::Binary) {
        if (V(0).dtype == DType::Bool) fail(f, op, in, "arithmetic on bool operands; cast first");
        if (is_fp8(V(0).dtype)) fail(f, op, in, "fp8 values support only casts; cast to f32 first");
        if ((op == Op::Div || op == Op::Pow) && !is_floating(V(0).dtype))
          fail(f, op, in, "expected floating operands (the builder casts integers to f32)");
      }
      Shape s = broadcast_shapes(V(0).shape, V(1).shape, call);
      return {{info.kind == OpKind::Binary ? V(0).dtype : DType::Bool, s}};
    }
    case OpKind::Ternary: {
      need(3);
      if (V(0).dtype != DType::Bool) fail(f, op, in, "the condition must be bool");
      if (V(1).dtype != V(2).dtype) fail(f, op, in, "branches must have one dtype after promotion");
      Shape s = broadcast_shapes(broadcast_shapes(V(0).shape, V(1).shape, call), V(2).shape, call);
      return {{V(1).dtype, s}};
    }
    case OpKind::Reduction: {
      need(1);
      const Value& x = V(0);
      int r = x.rank();
      if (attrs.axes.empty())
        for (int i = 0; i < r; ++i) attrs.axes.push_back(i);
      for (auto& a : attrs.axes) a = norm_axis(f, op, in, a, r);
      std::sort(attrs.axes.begin(), attrs.axes.end());
      if (std::adjacent_find(attrs.axes.begin(), attrs.axes.end()) != attrs.axes.end())
        fail(f, op, in, "repeated reduction axis");
      if (r == 0) attrs.axes.clear();
      Shape s;
      for (int i = 0; i < r; ++i) {
        bool red = std::binary_search(attrs.axes.begin(), attrs.axes.end(), i);
        if (!red) s.push_back(x.shape[i]);
        else if (attrs.keepdim) s.push_back(Dim(1));
      }
      DType t = x.dtype;
      if (is_fp8(t)) fail(f, op, in, "fp8 values support only casts; cast to f32 first");
      if (op == Op::Sum && is_integral(t)) t = DType::I64;
      if ((op == Op::Mean || op == Op::VarMean) && !is_floating(t))
        fail(f, op, in, "expected a floating operand, got " + std::string(dtype_name(t)));
      if (op == Op::VarMean) {
        if (attrs.correction < 0) fail(f, op, in, "correction must be >= 0");
        return {{t, s}, {t, s}};
      }
      return {{t, s}};
    }
    case OpKind::View: {
      need(1);
      const Value& x = V(0);
      int r = x.rank();
      switch (op) {
        case Op::Expand: {
          const Shape& tgt = attrs.shape;
          if (tgt.size() < x.shape.size())
            fail(f, op, in, "target " + shape_str(tgt) + " has fewer dims than the operand");
          Shape out = tgt;
          size_t off = tgt.size() - x.shape.size();
          for (size_t i = 0; i < tgt.size(); ++i) {
            if (tgt[i].const_value() != -1 && surely_negative(tgt[i]))
              fail(f, op, in, "negative size " + tgt[i].str() + " in " + shape_str(tgt));
            if (i >= off) {
              const Dim& d = x.shape[i - off];
              if (tgt[i].const_value() == -1) out[i] = d;
              else if (!(d.is_one() || d == tgt[i]))
                fail(f, op, in, "cannot expand dim " + std::to_string(i - off) + " (" + d.str() + ") to " + tgt[i].str());
            } else if (tgt[i].const_value() == -1) {
              fail(f, op, in, "-1 is only allowed for existing dims");
            }
          }
          attrs.shape = out;
          return {{x.dtype, out}};
        }
        case Op::Reshape: {
          Product have, want;
          for (const auto& d : x.shape) have.mul(d);
          int infer_at = -1;
          for (size_t i = 0; i < attrs.shape.size(); ++i) {
            if (attrs.shape[i].const_value() == -1) {
              if (infer_at >= 0) fail(f, op, in, "only one -1 is allowed in " + shape_str(attrs.shape));
              infer_at = static_cast<int>(i);
            } else {
              if (surely_negative(attrs.shape[i]))
                fail(f, op, in, "negative size " + attrs.shape[i].str() + " in " + shape_str(attrs.shape));
              want.mul(attrs.shape[i]);
            }
          }
          if ((!have.ok || !want.ok) && infer_at >= 0)
            fail(f, op, in, "cannot infer -1 in " + shape_str(attrs.shape) + " from sizes with sums in them");
          auto plain = [](const Shape& s) {
            return std::all_of(s.begin(), s.end(), [](const Dim& d) { return d.const_value() == -1 || d.is_plain_product(); });
          };
          if (!have.ok || !want.ok || (infer_at < 0 && (!plain(x.shape) || !plain(attrs.shape)))) {
            // Sums, min() and ceildiv (slices of symbolic dims) cannot be compared here: the
            // element counts are checked when sizes are bound (bind_shapes), before anything runs.
          } else if (infer_at >= 0) {
            std::vector<Dim> rest = have.factors;
            for (const auto& w : want.factors) {
              auto it = std::find(rest.begin(), rest.end(), w);
              if (it == rest.end()) fail(f, op, in, "cannot infer -1 in " + shape_str(attrs.shape));
              rest.erase(it);
            }
            if (want.c <= 0 || have.c % want.c)
              fail(f, op, in, "cannot infer -1 in " + shape_str(attrs.shape));
            attrs.shape[infer_at] = product_dim(have.c / want.c, rest);
          } else if (have.c != want.c || have.names() != want.names()) {
            fail(f, op, in, "target " + shape_str(attrs.shape) + " has a different number of elements");
          }
          return {{x.dtype, attrs.shape}};
        }
        case Op::Permute: {
          if (static_cast<int>(attrs.axes.size()) != r)
            fail(f, op, in, "expected a permutation of " + std::to_string(r) + " dims");
          std::vector<int64_t> seen(r, 0);
          Shape out;
          for (auto& a : attrs.axes) {
            a = norm_axis(f, op, in, a, r);
            if (seen[a]++) fail(f, op, in, "dims are not a permutation");
            out.push_back(x.shape[a]);
          }
          return {{x.dtype, out}};
        }
        case Op::Squeeze: {
          for (auto& a : attrs.axes) {
            a = norm_axis(f, op, in, a, r);
            if (!x.shape[a].is_one())
              fail(f, op, in, "dim " + std::to_string(a) + " is " + x.shape[a].str() + ", not 1");
          }
          std::sort(attrs.axes.begin(), attrs.axes.end());
          attrs.axes.erase(std::unique(attrs.axes.begin(), attrs.axes.end()), attrs.axes.end());
          Shape out;
          for (int i = 0; i < r; ++i)
            if (!std::binary_search(attrs.axes.begin(), attrs.axes.end(), i)) out.push_back(x.shape[i]);
          return {{x.dtype, out}};
        }
        case Op::Unsqueeze: {
          attrs.axis = norm_axis(f, op, in, attrs.axis, r + 1);
          Shape out = x.shape;
          out.insert(out.begin() + attrs.axis, Dim(1));
          return {{x.dtype, out}};
        }
        case Op::Pad: {
          attrs.axis = norm_axis(f, op, in, attrs.axis, r);
          sync_bounds(f, op, in, attrs);
          if (attrs.start < 0 || attrs.end < 0 || attrs.start > kMaxPad || attrs.end > kMaxPad)
            fail(f, op, in, "pad sizes must be in [0, " + std::to_string(kMaxPad) + "]");
          Shape out = x.shape;
          // Symbolic sizes are checked (>= 0) when sizes are bound.
          out[attrs.axis] = attrs.bound_start + x.shape[attrs.axis] + attrs.bound_end;
          return {{x.dtype, out}};
        }
        case Op::Slice: {
          attrs.axis = norm_axis(f, op, in, attrs.axis, r);
          if (attrs.step < 1) fail(f, op, in, "step must be >= 1");
          const Dim& d = x.shape[attrs.axis];
          Shape out = x.shape;
          // Bounds past the dim clamp to it, as in torch (x[0:100] of 4 elements has 4).
          if (auto n = d.const_value()) {
            auto clampi = [&](int64_t v) {
              if (v == kSliceToEnd) return *n;
              if (v < 0) v = v < -*n ? 0 : v + *n;
              return std::clamp<int64_t>(v, 0, *n);
            };
            attrs.start = clampi(attrs.start);
            attrs.end = clampi(attrs.end);
            // ceil((end - start) / step) without forming end - start + step - 1 (step may be huge).
            int64_t len = attrs.end > attrs.start ? (attrs.end - attrs.start - 1) / attrs.step + 1 : 0;
            out[attrs.axis] = Dim(len);
          } else {
            if (attrs.start < 0 || (attrs.end != kSliceToEnd && attrs.end < attrs.start))
              fail(f, op, in, "a slice of symbolic dim " + d.str() + " needs 0 <= start <= end");
            if (attrs.end == kSliceToEnd && attrs.step != 1)
              fail(f, op, in, "a strided slice to the end of a symbolic dim is not supported");
            // min(d, end) - min(d, start) elements in steps of `step`; min(d, 0) is 0.
            Dim end = attrs.end == kSliceToEnd ? d : Dim::min(d, Dim(attrs.end));
            Dim span = attrs.start == 0 ? end : end + Dim(-1) * Dim::min(d, Dim(attrs.start));
            out[attrs.axis] = Dim::ceildiv(span, Dim(attrs.step));
          }
          return {{x.dtype, out}};
        }
        default: break;
      }
      break;
    }
    case OpKind::Cat: {
      if (in.empty()) fail(f, op, in, "expected at least one operand");
      same_dtype();
      int r = V(0).rank();
      if (r == 0) fail(f, op, in, "cannot concatenate rank-0 values");
      attrs.axis = norm_axis(f, op, in, attrs.axis, r);
      Shape out = V(0).shape;
      for (size_t i = 1; i < in.size(); ++i) {
        if (V(i).rank() != r) fail(f, op, in, "operands differ in rank");
        for (int d = 0; d < r; ++d)
          if (d != attrs.axis && !(V(i).shape[d] == out[d]))
            fail(f, op, in, "operands differ in dim " + std::to_string(d));
        out[attrs.axis] = out[attrs.axis] + V(i).shape[attrs.axis];
      }
      return {{V(0).dtype, out}};
    }
    case OpKind::Matmul: {
      if (op == Op::Linear) {
        if (in.size() != 2 && in.size() != 3) fail(f, op, in, "expected (x, w) or (x, w, bias)");
        same_dtype();
        if (!is_floating(V(0).dtype) || is_fp8(V(0).dtype)) fail(f, op, in, "expected f16/bf16/f32/f64 operands");
        if (V(0).rank() < 1 || V(1).rank() != 2) fail(f, op, in, "expected x[..., K] and w[N, K]");
        if (!(V(0).shape.back() == V(1).shape[1])) fail(f, op, in, "K of x and w differ");
        if (in.size() == 3 && !(V(2).rank() == 1 && V(2).shape[0] == V(1).shape[0]))
          fail(f, op, in, "bias must be [N]");
        Shape out = V(0).shape;
        out.back() = V(1).shape[0];
        return {{V(0).dtype, out}};
      }
      need(2);
      same_dtype();
      if (!is_floating(V(0).dtype) || is_fp8(V(0).dtype)) fail(f, op, in, "expected f16/bf16/f32/f64 operands");
      Shape a = V(0).shape, b = V(1).shape;
      if (a.empty() || b.empty()) fail(f, op, in, "operands must have rank >= 1");
      bool a1 = a.size() == 1, b1 = b.size() == 1;
      if (a1) a.insert(a.begin(), Dim(1));
      if (b1) b.push_back(Dim(1));
      if (!(a.back() == b[b.size() - 2]))
        fail(f, op, in, "contracted dims differ: " + a.back().str() + " vs " + b[b.size() - 2].str());
      Shape batch = broadcast_shapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2), call + ": batch dims");
      Shape out = batch;
      if (!a1) out.push_back(a[a.size() - 2]);
      if (!b1) out.push_back(b.back());
      return {{V(0).dtype, out}};
    }
  }
  fail(f, op, in, "unsupported op");
}

}  // namespace solder
