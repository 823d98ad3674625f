// Outer (column) reductions: Inner segments whose reduced dims are not the memory-innermost of
// their inputs (a column sum of [B, H], var_mean over dim 0, a mean over the middle axis of a
// 3-d tensor, batch-norm statistics over [N*H*W, C]). The inner template reads such inputs one
// element at a time (General access); the outer template (codegen/kernel_outer.cpp) views the
// domain as [reduced rows, kept columns], kept innermost, so its loads are coalesced 16-byte
// vectors along the kept axis.
//
// Its plans keep the segment's kernel order [kept | reduced], so the launch facts and the
// parameter block are the inner ones (p.R counts kept columns, p.C reduced rows), and set
// shape.category = Outer, on which codegen and launch_grid dispatch. Their operands' access
// classes describe the transposed view: Full (rows of the reduced index at a row stride, unit
// kept columns), Col (kept only, unit stride), Row (reduced only) and Scalar.
#include <algorithm>

#include "schedule/registry.h"
#include "schedule/stages.h"

namespace solder {

namespace {

// Rows (of the reduced dims) a thread takes at least per split in the grid form: fewer leave
// the partials' traffic and the last block's combine a visible share of the work.
constexpr int64_t kMinIterationsPerSplit = 8;
constexpr int kOuterThreads = 256;
constexpr int kOuterUnroll = 4;

// How an operand varies over kernel dims [lo, hi) of size > 1: not at all, or as one linear
// index (each dim's stride = the next one's stride x its size) whose innermost stride is
// `stride`, or otherwise (strided).
struct Part {
  bool varies = false;
  bool linear = true;
  int64_t stride = 0;
};
Part part_of(const LaunchFacts& facts, const OperandFacts& of, int lo, int hi) {
  Part p;
  std::vector<int> rel;
  for (int d = lo; d < hi; ++d)
    if (facts.dims[d] > 1) rel.push_back(d);
  const bool any = std::any_of(rel.begin(), rel.end(), [&](int d) { return of.strides[d] != 0; });
  const bool all = std::all_of(rel.begin(), rel.end(), [&](int d) { return of.strides[d] != 0; });
  p.varies = any;
  if (!any) return p;
  p.linear = all;
  for (size_t i = 0; p.linear && i + 1 < rel.size(); ++i)
    if (of.strides[rel[i]] != of.strides[rel[i + 1]] * facts.dims[rel[i + 1]]) p.linear = false;
  p.stride = of.strides[rel.back()];
  return p;
}

// The kept dims split in two (write_outer computes the same split in the kernel): the inner
// run, the longest run of trailing kept dims that the first input varying along the reduced
// and the kept dims lays out contiguously at unit stride (its memory-innermost; HK elements),
// and the outer kept dims before it. Kernel position of the run's first dim.
int kept_split(const ScheduleContext& cx, int64_t& hk) {
  const int rank = static_cast<int>(cx.facts.dims.size()), split = cx.shape.split;
  hk = 1;
  for (int k = 0; k < cx.shape.num_inputs; ++k) {
    const OperandFacts& of = cx.facts.operands[k];
    bool kept = false, reduced = false;
    for (int d = 0; d < rank; ++d)
      if (cx.facts.dims[d] > 1 && of.strides[d] != 0) (d < split ? kept : reduced) = true;
    if (!kept || !reduced) continue;
    int d = split;
    while (d > 0 && (cx.facts.dims[d - 1] == 1 || of.strides[d - 1] == hk)) hk *= cx.facts.dims[--d];
    return d;
  }
  return split;
}

// An operand over the three groups of kernel dims: the outer kept dims, the inner kept dims
// (see kept_split) and the reduced dims.
struct OperandView {
  Part outer, inner, reduced;
};
OperandView view_of(const ScheduleContext& cx, size_t k, int ki) {
  const int rank = static_cast<int>(cx.facts.dims.size());
  const OperandFacts& of = cx.facts.operands[k];
  return {part_of(cx.facts, of, 0, ki), part_of(cx.facts, of, ki, cx.shape.split),
          part_of(cx.facts, of, cx.shape.split, rank)};
}
bool unit_linear(const Part& p) { return p.linear && p.stride == 1; }
// The kept part of an operand as the template addresses it: (column / HK) x the outer
// stride + (column % HK) x (0 or 1), HK the inner kept dims' size.
std::optional<std::string> kept_addressable(const OperandView& v, const std::string& name) {
  if (v.inner.varies && !unit_linear(v.inner))
    return name + ": its innermost kept dims are not contiguous at unit stride";
  if (v.outer.varies && !v.outer.linear) return name + ": its outer kept dims do not collapse to one stride";
  return std::nullopt;
}

int64_t pow2ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

class OuterScheduler final : public Scheduler {
 public:
  const char* name() const override { return "outer"; }

  std::optional<std::string> cannot_schedule(const ScheduleContext& cx) const override {
    if (cx.segment.category != KernelCategory::Inner) return "no reduction with kept dims";
    int64_t inner_kept = 1;
    const int ki = kept_split(cx, inner_kept);
    if (inner_kept <= 1) return "no input has a kept dim as its memory-innermost (a reduction over the innermost dims: inner)";
    const Fusion& f = cx.fusion;
    bool column_input = false;
    for (size_t k = 0; k < static_cast<size_t>(cx.shape.num_inputs); ++k) {
      const OperandView v = view_of(cx, k, ki);
      const std::string name = "input " + f.value(cx.shape.operands[k]).name;
      if (v.reduced.varies && !v.reduced.linear) return name + ": the reduced dims do not collapse to one row stride";
      if (v.reduced.varies && v.outer.varies && !v.inner.varies)
        return name + ": varies along the reduced and the outer kept dims but not the innermost kept ones";
      if (auto why = kept_addressable(v, name)) return why;
      column_input |= v.reduced.varies && v.inner.varies;
    }
    if (!column_input) return "no input varies along both the reduced dims and the innermost kept dims";
    for (size_t k = cx.shape.num_inputs; k < cx.shape.operands.size(); ++k) {
      const OperandView v = view_of(cx, k, ki);
      const std::string name = "output " + f.value(cx.shape.operands[k]).name;
      if (v.reduced.varies) return name + " varies along the reduced dims: element outputs need the outer persistent form (not built)";
      if (auto why = kept_addressable(v, name)) return why;
    }
    const StagePlan sp = plan_stages(f, cx.segment, cx.shape, false, false);
    if (sp.max_level > 1) return "a reduction reads another's result: that needs the outer persistent form (not built)";
    return std::nullopt;
  }

  std::vector<KernelPlan> candidates(const ScheduleContext& cx) const override {
    const LaunchFacts& facts = cx.facts;
    KernelPlan plan = base_plan(cx.fusion, cx.segment, cx.segment_index, cx.shape, facts);
    plan.shape.category = KernelCategory::Outer;
    if (plan.name.rfind("solder_red_", 0) == 0) plan.name = "solder_outer_" + plan.name.substr(11);
    // The access classes of the transposed view [reduced rows, kept columns]; the widest
    // vector every column input's address, row stride and outer kept stride allow, which
    // divides the inner kept size (a vector never straddles an outer kept index).
    int64_t inner_kept = 1;
    const int ki = kept_split(cx, inner_kept);
    int widest = 1;
    std::vector<OperandView> views;
    for (size_t k = 0; k < plan.operands.size(); ++k) {
      const OperandView v = view_of(cx, k, ki);
      views.push_back(v);
      const bool kept = v.outer.varies || v.inner.varies;
      Access& a = plan.operands[k].access;
      a = kept && v.reduced.varies ? Access::Full : kept ? Access::Col : v.reduced.varies ? Access::Row : Access::Scalar;
      if (a == Access::Full) widest = std::max(widest, dtype_size(facts.operands[k].dtype));
    }
    int vec = 16 / widest;
    for (; vec > 1; vec /= 2) {
      bool ok = inner_kept % vec == 0;
      for (size_t k = 0; k < plan.operands.size(); ++k) {
        if (plan.operands[k].access != Access::Full) continue;
        const uint64_t bytes = static_cast<uint64_t>(vec) * dtype_size(facts.operands[k].dtype);
        if (facts.operands[k].address % bytes || views[k].reduced.stride % vec || views[k].outer.stride % vec) ok = false;
      }
      if (ok) break;
    }
    const int64_t K = facts.R, rows = facts.C;
    std::vector<KernelPlan> out;
    auto add = [&](int v, int unroll, int min_blocks) {
      KernelParams& p = plan.params;
      // Threads along the kept columns: a warp's worth of vectors per row where the columns
      // allow (a warp then reads 32 x 16 contiguous bytes of a row), fewer for narrow tensors;
      // the rest of the block's 256 threads along the rows.
      const int64_t vectors = (K + v - 1) / v;
      const int tx = static_cast<int>(std::min<int64_t>(32, pow2ceil(vectors)));
      p.vec = v;
      p.threads = kOuterThreads;
      p.rows_per_block = kOuterThreads / tx;
      p.unroll = unroll;
      p.min_blocks = min_blocks;
      // The grid form where the kept tiles alone leave the device short of two waves of
      // resident blocks (estimated at full occupancy) and the rows are long enough to split.
      const int64_t tiles = (vectors + tx - 1) / tx;
      const int64_t resident = int64_t{cx.device.sm_count} * std::max(1, cx.device.max_threads_per_sm / kOuterThreads);
      p.grid_split = tiles < 2 * resident && rows >= 2 * p.rows_per_block * unroll * kMinIterationsPerSplit;
      out.push_back(plan);
    };
    // First 1024 threads resident (min_blocks 4: a 64-register cap; uncapped, ptxas took 71
    // registers for the column sum and 117 for var_mean, 2 blocks per SM). Fallbacks after
    // spills: fewer rows in flight, then 512 threads resident (128 registers: batch-norm
    // statistics, a Welford step and a max, spill under 64 even one row at a time), then
    // narrower vectors; the last (one element, one row at a time, uncapped) always compiles.
    const int full = std::max(1, 1024 / kOuterThreads), half = std::max(1, 512 / kOuterThreads);
    add(vec, kOuterUnroll, full);
    add(vec, 2, full);
    add(vec, kOuterUnroll, half);
    add(vec, 2, half);
    add(vec, 1, half);
    for (int v = vec / 2; v >= 1; v /= 2) add(v, 1, v == 1 ? 1 : half);
    return out;
  }
};

}  // namespace

const Scheduler& outer_scheduler() {
  static const OuterScheduler s;
  return s;
}

}  // namespace solder
