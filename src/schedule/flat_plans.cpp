#include "schedule/flat_plans.h"

#include <algorithm>

namespace solder {

namespace {
// Single-row problems this large give each thread several vectors per pass (more bytes in
// flight, fewer blocks); perf-notes has the measurements.
constexpr int64_t kUnrollFromElements = int64_t{1} << 20;
constexpr int kUnroll = 4;
// 8 resident blocks of 256 threads fill an SM's 2048 threads.
constexpr int kFlatThreads = 256;

// Windows and pads (a cat's pieces in one kernel): each `vec` chunk must lie wholly inside or
// outside every window, since the template tests a vector once. So vec divides the innermost
// dim (a chunk stays in one index of the outer dims) and, for windows along the innermost dim,
// both bounds. Whether `vec` keeps that; `windowed` says the segment has any.
bool windows_allow(const ScheduleContext& cx, int vec, bool& windowed) {
  const int rank = static_cast<int>(cx.shape.dim_order.size());
  bool ok = true;
  for (int ni : cx.segment.nodes)  // pads are read by the nodes, windows computed inline for them
    for (int v : cx.fusion.nodes()[ni].in) {
      const Node* n = pad_or_window(cx.fusion, v);
      if (!n) continue;
      windowed = true;
      if (rank == 0 || cx.facts.dims.empty()) continue;
      if (cx.facts.dims[rank - 1] % vec) ok = false;
      if (window_dim(cx.fusion, cx.shape, v) != rank - 1) continue;
      const int64_t hi = n->op == Op::Window ? n->attrs.end : cx.facts.dims[rank - 1] - n->attrs.end;
      if (n->attrs.start % vec || hi % vec) ok = false;
    }
  return ok;
}

// Phase-shifted rows for pointwise kernels whose rows do not start vector-aligned (C = 4097,
// a view at an odd offset): each row's chunks start at the aligned vector that overlaps its
// first element, masked at both ends. Every row-varying (Full) operand must be off by the same
// number of elements in every row (the same phase of its address and of its row stride), so
// one shift aligns them all; weights (Col) are then read element by element. The vector width
// in elements, or 0 where rows are aligned already or the phases differ.
int phased_vec(const KernelPlan& plan, const LaunchFacts& facts, int aligned_vec) {
  if (plan.shape.category != KernelCategory::Pointwise || facts.R <= 1) return 0;
  int widest = 0;
  for (size_t k = 0; k < plan.operands.size(); ++k)
    if (plan.operands[k].access == Access::Full) widest = std::max(widest, dtype_size(facts.operands[k].dtype));
  if (widest == 0 || widest > 8) return 0;
  const int v = 16 / widest;
  if (v <= aligned_vec || facts.C < 2 * v) return 0;
  int64_t phase = -1, ld = -1;
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    if (plan.operands[k].access != Access::Full) continue;
    const uint64_t es = dtype_size(facts.operands[k].dtype);
    if (facts.operands[k].address % es) return 0;
    const int64_t ph = static_cast<int64_t>(facts.operands[k].address / es % v), l = facts.operands[k].ld % v;
    if ((phase >= 0 && ph != phase) || (ld >= 0 && l != ld)) return 0;
    phase = ph;
    ld = l;
  }
  return v;
}
}  // namespace

std::vector<KernelPlan> flat_candidates(const ScheduleContext& cx) {
  KernelPlan plan = base_plan(cx.fusion, cx.segment, cx.segment_index, cx.shape, cx.facts);
  KernelParams& p = plan.params;
  // Pointwise kernels over a single row may end in a masked tail; others need C % vec == 0 so
  // every row starts aligned.
  p.vec = widest_vec(plan, cx.facts, cx.facts.R == 1);
  // With no operand loaded as a vector (every one General, per row or scalar), VEC would only
  // give each thread VEC consecutive elements: a warp's reads then stride VEC apart, and the
  // element-wise addressing unrolled VEC x UNROLL times took ptxas seconds (a full reduction of
  // a sliced bf16 2048 x 16384: 2.7 s at VEC 16, seed 4 of the sweep). One element per thread.
  const bool any_vector = std::any_of(plan.operands.begin(), plan.operands.end(), [](const OperandPlan& o) {
    return o.access == Access::Full || o.access == Access::Col;
  });
  if (!any_vector) p.vec = 1;
  bool windowed = false;
  windows_allow(cx, 1, windowed);
  while (p.vec > 1 && !windows_allow(cx, p.vec, windowed)) p.vec /= 2;
  p.threads = kFlatThreads;
  p.unroll = cx.facts.R == 1 && cx.facts.C >= kUnrollFromElements ? kUnroll : 1;
  const std::optional<Choice> pick = cx.recorded_choice(cx.facts.C, p.vec);
  if (pick && pick->threads) {
    p.threads = pick->threads;
    p.unroll = pick->unroll;
  }
  std::vector<KernelPlan> out;
  if (const int v = windowed ? 0 : phased_vec(plan, cx.facts, p.vec)) {
    KernelPlan phased = plan;
    phased.params.vec = v;
    phased.params.col_vec = 1;  // weights one element at a time
    out.push_back(phased);
  }
  out.push_back(plan);
  // Fallbacks after spills: fewer values in flight per thread.
  while (p.unroll > 1 || p.vec > 1) {
    if (p.unroll > 1) p.unroll = 1;
    else p.vec /= 2;
    out.push_back(plan);
  }
  return out;
}

}  // namespace solder
