#include "reference/buffer.h"

#include "reference/parallel.h"
#include "solder/error.h"
#include "solder/host_tensor.h"

namespace solder::ref {

int64_t numel(const Sizes& shape) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

Sizes row_major_strides(const Sizes& shape) {
  Sizes st(shape.size());
  int64_t n = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    st[d] = n;
    n *= shape[d];
  }
  return st;
}

std::string sizes_str(const Sizes& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

std::vector<double> broadcast_to(const Buf& in, const Sizes& shape) {
  if (in.shape == shape) return in.data;
  if (in.shape.size() > shape.size())
    throw Error("reference: cannot broadcast " + sizes_str(in.shape) + " to " + sizes_str(shape));
  // Strides of `in` seen through the output's index space: 0 where a dim is stretched or absent.
  size_t off = shape.size() - in.shape.size();
  Sizes src = row_major_strides(in.shape), st(shape.size(), 0);
  for (size_t d = 0; d < in.shape.size(); ++d) {
    if (in.shape[d] == shape[d + off]) st[d + off] = src[d];
    else if (in.shape[d] != 1)
      throw Error("reference: cannot broadcast " + sizes_str(in.shape) + " to " + sizes_str(shape));
  }
  const int64_t n = numel(shape);
  std::vector<double> out(static_cast<size_t>(n));
  parallel_for(n, [&](int64_t begin, int64_t end) {
    if (begin == end) return;
    // The chunk's first output index, then an odometer that moves the source position along.
    Sizes idx(shape.size(), 0);
    int64_t pos = 0;  // source index of the current output element
    int64_t rest = begin;
    for (size_t d = shape.size(); d-- > 0;) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
      pos += idx[d] * st[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      out[i] = in.data[pos];
      for (size_t d = shape.size(); d-- > 0;) {
        pos += st[d];
        if (++idx[d] < shape[d]) break;
        pos -= st[d] * idx[d];
        idx[d] = 0;
      }
    }
  });
  return out;
}

const double* broadcast_view(const Buf& in, const Sizes& shape, std::vector<double>& scratch) {
  if (in.shape == shape) return in.data.data();
  scratch = broadcast_to(in, shape);
  return scratch.data();
}

void round_all(std::vector<double>& v, DType t) {
  if (t == DType::F64) return;
  parallel_for(static_cast<int64_t>(v.size()), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) v[i] = round_to(t, v[i]);
  });
}

}  // namespace solder::ref
