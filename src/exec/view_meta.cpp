#include "exec/view_meta.h"

#include <algorithm>
#include <numeric>

namespace solder {

int64_t TensorMeta::numel() const {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

TensorMeta TensorMeta::contiguous(DType t, std::vector<int64_t> shape) {
  TensorMeta m{t, std::move(shape), {}};
  m.strides.assign(m.shape.size(), 1);
  for (int d = static_cast<int>(m.shape.size()) - 2; d >= 0; --d) m.strides[d] = m.strides[d + 1] * m.shape[d + 1];
  return m;
}

namespace {
// Strides for a reshape without copying: old dims are grouped into runs that are contiguous
// with each other; each run must be exactly covered by consecutive new dims.
bool reshape_strides(const TensorMeta& in, const std::vector<int64_t>& shape, std::vector<int64_t>& st) {
  st.assign(shape.size(), 1);
  if (in.numel() == 0 || in.shape.empty()) {
    st = TensorMeta::contiguous(in.dtype, shape).strides;
    return true;
  }
  int view_d = static_cast<int>(shape.size()) - 1;
  int64_t base = in.strides.back(), tensor_numel = 1, view_numel = 1;
  for (int d = static_cast<int>(in.shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= in.shape[d];
    bool run_ends = d == 0 || (in.shape[d - 1] != 1 && in.strides[d - 1] != tensor_numel * base);
    if (!run_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
      st[view_d] = view_numel * base;
      view_numel *= shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return false;
    if (d > 0) {
      base = in.strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  return view_d == -1;
}
}  // namespace

bool view_meta(const Node& n, const TensorMeta& in, const std::vector<int64_t>& out_shape, TensorMeta& out,
               int64_t& offset) {
  out.dtype = in.dtype;
  out.shape = out_shape;
  offset = 0;
  const int r = static_cast<int>(in.shape.size());
  switch (n.op) {
    case Op::Expand: {
      out.strides.assign(out_shape.size(), 0);
      size_t lead = out_shape.size() - in.shape.size();
      for (int d = 0; d < r; ++d) out.strides[lead + d] = in.shape[d] == out_shape[lead + d] ? in.strides[d] : 0;
      return true;
    }
    case Op::Permute:
      out.strides.clear();
      for (auto a : n.attrs.axes) out.strides.push_back(in.strides[a]);
      return true;
    case Op::Squeeze: {
      out.strides.clear();
      for (int d = 0; d < r; ++d) {
        bool gone = false;
        for (auto a : n.attrs.axes) gone |= a == d;
        if (!gone) out.strides.push_back(in.strides[d]);
      }
      return true;
    }
    case Op::Unsqueeze:
      out.strides = in.strides;
      out.strides.insert(out.strides.begin() + n.attrs.axis, 0);
      return true;
    case Op::Slice: {
      out.strides = in.strides;
      int64_t size = in.shape[n.attrs.axis];
      int64_t start = n.attrs.start < 0 ? n.attrs.start + size : n.attrs.start;
      if (start > size) start = size;
      offset = start * in.strides[n.attrs.axis];
      out.strides[n.attrs.axis] *= n.attrs.step;
      return true;
    }
    case Op::Pad:
      // The padded view starts `before` elements ahead of x (an address kernels only form:
      // every read of a pad is masked to x's own elements, see Writer::window_of).
      out.strides = in.strides;
      offset = -n.attrs.start * in.strides[n.attrs.axis];
      return true;
    case Op::Reshape: return reshape_strides(in, out_shape, out.strides);
    default: return false;
  }
}

namespace {
// Eager's layout for an element op's result (TensorIterator's rule): its dims ordered by the
// operands' strides, the first operand whose strides tell two dims apart deciding, broadcast
// dims (stride 0) telling nothing, equal strides putting the smaller dim inside; dense in that
// order. `ops` holds each operand's strides aligned to the result's dims.
std::vector<int64_t> element_layout(const std::vector<int64_t>& shape, const std::vector<std::vector<int64_t>>& ops) {
  const int r = static_cast<int>(shape.size());
  std::vector<int> perm(r);  // perm[0]: the fastest dim
  for (int i = 0; i < r; ++i) perm[i] = r - 1 - i;
  auto should_swap = [&](int d0, int d1) {
    for (const auto& st : ops) {
      if (st[d0] == 0 || st[d1] == 0) continue;
      if (st[d0] < st[d1]) return -1;
      if (st[d0] > st[d1]) return 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  for (int i = 1; i < r; ++i) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  std::vector<int64_t> st(r);
  int64_t next = 1;
  for (int d : perm) {
    st[d] = next;
    next *= std::max<int64_t>(shape[d], 1);
  }
  return st;
}

// Dense strides in the order of `m`'s strides (a view's layout made a buffer of its own), or
// contiguous where that order differs from contiguous only in size-1 dims, or where `m`
// broadcasts (an expand's order says nothing of how to lay its copy out).
std::vector<int64_t> dense_like(const TensorMeta& m) {
  const int r = static_cast<int>(m.shape.size());
  for (int d = 0; d < r; ++d)
    if (m.strides[d] == 0 && m.shape[d] != 1) return TensorMeta::contiguous(m.dtype, m.shape).strides;
  std::vector<int> order(r);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return m.strides[x] > m.strides[y]; });
  std::vector<int64_t> st(r), kept;
  int64_t next = 1;
  for (int i = r - 1; i >= 0; --i) {
    st[order[i]] = next;
    next *= std::max<int64_t>(m.shape[order[i]], 1);
    if (m.shape[order[i]] != 1) kept.push_back(order[i]);
  }
  if (std::is_sorted(kept.rbegin(), kept.rend())) return TensorMeta::contiguous(m.dtype, m.shape).strides;
  return st;
}
}  // namespace

std::vector<TensorMeta> natural_output_metas(const Fusion& f, const Bindings& b,
                                             const std::vector<std::vector<int64_t>>& input_strides) {
  // Every value's layout as eager would make it, op by op: element ops follow their operands'
  // layouts and views keep their source's strides; reductions, cats, pads, matmuls, windows and
  // composites whose eager kernel writes contiguous results (Value::contiguous_result) make
  // contiguous results.
  const size_t nv = f.values().size();
  std::vector<TensorMeta> m(nv);
  for (size_t i = 0; i < f.inputs().size(); ++i) {
    const int v = f.inputs()[i];
    m[v] = TensorMeta::contiguous(f.value(v).dtype, eval_shape(f.value(v).shape, b));
    if (i < input_strides.size() && input_strides[i].size() == m[v].shape.size()) m[v].strides = input_strides[i];
  }
  for (const Node& n : f.nodes()) {
    for (size_t k = 0; k < n.out.size(); ++k) {
      const int v = n.out[k];
      m[v] = TensorMeta::contiguous(f.value(v).dtype, eval_shape(f.value(v).shape, b));
    }
    const int v = n.out[0];
    const OpKind kind = op_info(n.op).kind;
    if (f.value(v).contiguous_result) continue;
    if (is_element_op(n.op)) {
      const std::vector<int64_t>& shape = m[v].shape;
      const size_t r = shape.size();
      std::vector<std::vector<int64_t>> ops;
      for (int a : n.in) {
        const TensorMeta& x = m[a];
        std::vector<int64_t> st(r, 0);
        for (size_t d = 0; d < x.shape.size(); ++d) {
          const size_t od = r - x.shape.size() + d;
          st[od] = x.shape[d] == 1 && shape[od] != 1 ? 0 : x.strides[d];
        }
        ops.push_back(std::move(st));
      }
      m[v].strides = element_layout(shape, ops);
    } else if (kind == OpKind::View && n.op != Op::Pad) {
      TensorMeta out;
      int64_t offset = 0;
      if (view_meta(n, m[n.in[0]], m[v].shape, out, offset)) m[v].strides = out.strides;
    }
  }
  std::vector<TensorMeta> metas;
  for (int v : f.outputs()) {
    TensorMeta o = m[v];
    o.strides = dense_like(o);
    metas.push_back(std::move(o));
  }
  return metas;
}

}  // namespace solder
