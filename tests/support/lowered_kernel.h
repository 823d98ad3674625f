#pragma once
// The first kernel segment of a program lowered, with its launch facts, without a GPU: inputs
// contiguous, a permute inside the program read at its input's strides (as the executor passes
// a view), inputs optionally misaligned by one element (as the GPU tier's Layout::Misaligned
// uploads them). For the CPU tiers' checks of a scheduler's candidates (outer_norm_test,
// register_model_test).
#include <vector>

#include "pipeline/compile_kernel.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "schedule/launch_grid.h"

namespace solder::testing {

// Row-major strides of a shape.
inline std::vector<int64_t> contiguous(const std::vector<int64_t>& sh) {
  std::vector<int64_t> st(sh.size());
  int64_t acc = 1;
  for (int d = static_cast<int>(sh.size()) - 1; d >= 0; --d) {
    st[d] = acc;
    acc *= sh[d];
  }
  return st;
}

struct Lowered {
  SegmentedFusion sf;
  int si = 0;
  KernelShape ks;
  LaunchFacts facts;
};
inline Lowered lowered(const Fusion& f, const Bindings& sizes, bool misaligned = false) {
  Lowered l{lower(f)};
  const SegmentedFusion& sf = l.sf;
  const Bindings b = bind_shapes(sf.fusion, resolve_input_shapes(f, {}, sizes));
  while (sf.segments.at(l.si).kind != SegmentKind::Kernel) ++l.si;
  l.ks = analyze_kernel(sf.fusion, sf.segments.at(l.si));
  std::vector<std::vector<int64_t>> shapes, strides;
  std::vector<uint64_t> addresses;
  for (size_t k = 0; k < l.ks.operands.size(); ++k) {
    const Value& val = sf.fusion.value(l.ks.operands[k]);
    shapes.push_back(eval_shape(val.shape, b));
    strides.push_back(contiguous(shapes.back()));
    const bool input = static_cast<int>(k) < l.ks.num_inputs;
    addresses.push_back(kAlignClass + (misaligned && input ? dtype_size(val.dtype) : 0));
    // Views of inputs (a permute) reach the kernel as strided operands.
    if (val.producer < 0 || sf.fusion.nodes()[val.producer].op != Op::Permute) continue;
    const Node& n = sf.fusion.nodes()[val.producer];
    const auto src = contiguous(eval_shape(sf.fusion.value(n.in[0]).shape, b));
    for (size_t d = 0; d < n.attrs.axes.size(); ++d) strides[k][d] = src[n.attrs.axes[d]];
  }
  l.facts = kernel_facts(l.sf, l.si, l.ks, shapes, strides, addresses);
  return l;
}

}  // namespace solder::testing
