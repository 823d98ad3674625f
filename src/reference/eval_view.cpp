// Views and cat as dense copies. Shapes come from the IR (evaluated with the run's bindings);
// the checks here catch a disagreement between the IR's shape rules and the actual data.
#include <algorithm>

#include "reference/eval.h"
#include "solder/error.h"

namespace solder::ref {

namespace {
[[noreturn]] void fail(const Node& n, const std::string& why) {
  throw Error(std::string(op_name(n.op)) + " (reference): " + why);
}

Buf permute(const Node& n, const Buf& x, const Sizes& out_shape) {
  const auto& p = n.attrs.axes;
  if (p.size() != x.shape.size()) fail(n, "permutation rank differs from the operand's");
  // Read x through permuted strides: output dim i walks input dim p[i].
  Sizes src = row_major_strides(x.shape), shape(p.size()), st(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    shape[i] = x.shape[p[i]];
    st[i] = src[p[i]];
  }
  if (shape != out_shape) fail(n, "result " + sizes_str(shape) + " differs from the IR's " + sizes_str(out_shape));
  Buf r{shape, Doubles(x.data.size())};
  Sizes idx(shape.size(), 0);
  int64_t pos = 0;
  for (size_t i = 0; i < r.data.size(); ++i) {
    r.data[i] = x.data[pos];
    for (size_t d = shape.size(); d-- > 0;) {
      pos += st[d];
      if (++idx[d] < shape[d]) break;
      pos -= st[d] * idx[d];
      idx[d] = 0;
    }
  }
  return r;
}

Buf slice(const Node& n, const Buf& x, const Sizes& out_shape) {
  const auto& a = n.attrs;
  const int64_t size = x.shape.at(a.axis);
  // Constant dims arrive normalized; symbolic ones keep 0 <= start <= end (or end = to-the-end),
  // and bounds past the dim clamp to it, as in torch and the IR's shape rule.
  if (a.start < 0 || a.step < 1) fail(n, "slice start " + std::to_string(a.start) + " / step " + std::to_string(a.step) + " not normalized");
  int64_t start = std::min(a.start, size), end = std::min(a.end, size);
  int64_t len = end > start ? (end - start - 1) / a.step + 1 : 0;
  if (out_shape.at(a.axis) != len)
    fail(n, "slice length " + std::to_string(len) + " differs from the IR's " + std::to_string(out_shape[a.axis]));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < a.axis; ++d) outer *= x.shape[d];
  for (size_t d = a.axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  Buf r{out_shape, {}};
  r.data.reserve(static_cast<size_t>(outer * len * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < len; ++k) {
      const double* row = x.data.data() + (o * size + start + k * a.step) * inner;
      r.data.insert(r.data.end(), row, row + inner);
    }
  return r;
}

// Zeros (false) before and after x along the axis.
Buf pad(const Node& n, const Buf& x, const Sizes& out_shape) {
  const int64_t axis = n.attrs.axis, size = x.shape.at(axis), before = n.attrs.start;
  if (out_shape.at(axis) != size + before + n.attrs.end) fail(n, "padded size differs from the IR's");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  Buf r{out_shape, Doubles(static_cast<size_t>(numel(out_shape)), 0.0), x.dtype};
  for (int64_t o = 0; o < outer; ++o)
    std::copy(x.data.begin() + o * size * inner, x.data.begin() + (o + 1) * size * inner,
              r.data.begin() + (o * out_shape[axis] + before) * inner);
  return r;
}

Buf cat(const Node& n, const std::vector<const Buf*>& in, const Sizes& out_shape) {
  const int64_t axis = n.attrs.axis;
  int64_t outer = 1, total = 0;
  for (int64_t d = 0; d < axis; ++d) outer *= out_shape[d];
  for (const Buf* b : in) total += b->shape.at(axis);
  if (total != out_shape.at(axis)) fail(n, "operand sizes do not add up to the IR's result size");
  Buf r{out_shape, {}};
  r.data.reserve(static_cast<size_t>(numel(out_shape)));
  // Each operand contributes one contiguous chunk (its axis slab) per outer index.
  for (int64_t o = 0; o < outer; ++o)
    for (const Buf* b : in) {
      int64_t chunk = outer ? static_cast<int64_t>(b->data.size()) / outer : 0;
      const double* p = b->data.data() + o * chunk;
      r.data.insert(r.data.end(), p, p + chunk);
    }
  return r;
}
}  // namespace

Buf eval_view(const Node& n, const std::vector<const Buf*>& in, const OutSpec& out) {
  const Buf& x = *in.at(0);
  switch (n.op) {
    case Op::Expand: return Buf{out.shape, broadcast_to(x, out.shape)};
    case Op::Reshape:
    case Op::Squeeze:
    case Op::Unsqueeze:
      // Row-major data is unchanged; only the sizes differ.
      if (numel(out.shape) != numel(x.shape))
        fail(n, "cannot view " + sizes_str(x.shape) + " as " + sizes_str(out.shape));
      return Buf{out.shape, x.data};
    case Op::Permute: return permute(n, x, out.shape);
    case Op::Slice: return slice(n, x, out.shape);
    case Op::Pad: return pad(n, x, out.shape);
    case Op::Cat: return cat(n, in, out.shape);
    default: break;
  }
  fail(n, "not a view op");
}

}  // namespace solder::ref
