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

// Each program output's layout where the caller leaves its buffer to Solder, as eager lays it
// out: an element op's result in its operands' layout (sigmoid of a transposed input is
// transposed, TensorIterator's rule), a view in its source's stride order, a reduction's, cat's,
// pad's or matmul's result contiguous; always dense. `input_strides` (elements; contiguous
// where not given) are the inputs'.
std::vector<TensorMeta> natural_output_metas(const Fusion& f, const Bindings& b,
                                             const std::vector<std::vector<int64_t>>& input_strides = {});

}  // namespace solder
