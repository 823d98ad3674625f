#include "exec/view_meta.h"

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

std::vector<TensorMeta> natural_output_metas(const Fusion& f, const Bindings& b) {
  std::vector<int> readers(f.values().size(), 0);
  for (const Node& n : f.nodes())
    for (int v : n.in) ++readers[v];
  for (int v : f.outputs()) ++readers[v];
  std::vector<char> is_input(f.values().size(), 0);
  for (int v : f.inputs()) is_input[v] = 1;
  std::vector<TensorMeta> metas;
  for (int v : f.outputs()) {
    TensorMeta m = TensorMeta::contiguous(f.value(v).dtype, eval_shape(f.value(v).shape, b));
    const int p = f.value(v).producer;
    if (p >= 0 && f.nodes()[p].op == Op::Permute) {
      const Node& n = f.nodes()[p];
      const int src = n.in[0], sp = f.value(src).producer;
      const bool computed = sp >= 0 && (is_element_op(f.nodes()[sp].op) || op_info(f.nodes()[sp].op).kind == OpKind::Reduction);
      if (!is_input[src] && readers[src] == 1 && computed) {
        const TensorMeta s = TensorMeta::contiguous(f.value(src).dtype, eval_shape(f.value(src).shape, b));
        for (size_t d = 0; d < n.attrs.axes.size(); ++d) m.strides[d] = s.strides[n.attrs.axes[d]];
      }
    }
    metas.push_back(std::move(m));
  }
  return metas;
}

}  // namespace solder
