#pragma once
// Views as metadata: the shape/strides/offset a view op gives an existing tensor, or false
// when strides cannot express it (a reshape across non-mergeable dims), which needs a copy.
#include <cstdint>
#include <vector>

#include "solder/fusion.h"

namespace solder {

struct TensorMeta {
  DType dtype = DType::F32;
  std::vector<int64_t> shape, strides;  // elements
  int64_t numel() const;
  int64_t bytes() const { return numel() * dtype_size(dtype); }
  static TensorMeta contiguous(DType t, std::vector<int64_t> shape);
};

// `offset` receives the element offset of the view's element 0 from the input's element 0.
bool view_meta(const Node& n, const TensorMeta& in, const std::vector<int64_t>& out_shape, TensorMeta& out,
               int64_t& offset);

// Each program output's layout where the caller leaves its buffer to Solder: a permute of a
// computed value that nothing else reads keeps the permuted strides over a dense buffer of that
// value, as eager and torch.compile give it (transpose(tanh(x + b)) is a transposed view, its
// kernel writing rows in order instead of transposing); every other output contiguous.
std::vector<TensorMeta> natural_output_metas(const Fusion& f, const Bindings& b);

}  // namespace solder
