#include "schedule/outer_view.h"

#include "schedule/launch_grid.h"

#include <algorithm>

namespace solder {

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

int kept_split(const ScheduleContext& cx, int64_t& hk, bool* ended_early) {
  const int rank = static_cast<int>(cx.facts.dims.size()), split = cx.shape.split;
  hk = 1;
  for (int k = 0; k < cx.shape.num_inputs; ++k) {
    const OperandFacts& of = cx.facts.operands[k];
    bool kept = false, reduced = false;
    for (int d = 0; d < rank; ++d)
      if (cx.facts.dims[d] > 1 && of.strides[d] != 0) (d < split ? kept : reduced) = true;
    if (!kept || !reduced) continue;
    // The first such input with a kept dim as its memory-innermost (a residual laid out along
    // the reduced rows may come before a transposed input).
    int64_t h = 1;
    const int d = outer_kept_run(cx.facts, k, split, h, ended_early);
    if (h > 1) {
      hk = h;
      return d;
    }
  }
  return split;
}

OperandView view_of(const ScheduleContext& cx, size_t k, int ki) {
  const int rank = static_cast<int>(cx.facts.dims.size());
  const OperandFacts& of = cx.facts.operands[k];
  return {part_of(cx.facts, of, 0, ki), part_of(cx.facts, of, ki, cx.shape.split),
          part_of(cx.facts, of, cx.shape.split, rank)};
}

std::optional<std::string> kept_addressable(const OperandView& v, const std::string& name, bool unit_inner) {
  if (v.inner.varies && !(unit_inner ? unit_linear(v.inner) : v.inner.linear))
    return name + ": its innermost kept dims are not contiguous at unit stride";
  if (v.outer.varies && !v.outer.linear) return name + ": its outer kept dims do not collapse to one stride";
  return std::nullopt;
}

std::optional<std::string> outer_inputs_problem(const ScheduleContext& cx, int& ki, int64_t& hk, bool general_inputs) {
  if (cx.segment.category != KernelCategory::Inner) return "no reduction with kept dims";
  ki = kept_split(cx, hk);
  if (hk <= 1) return "no input has a kept dim as its memory-innermost (a reduction over the innermost dims: inner)";
  bool column_input = false;
  for (size_t k = 0; k < static_cast<size_t>(cx.shape.num_inputs); ++k) {
    const OperandView v = view_of(cx, k, ki);
    const std::string name = "input " + cx.fusion.value(cx.shape.operands[k]).name;
    if (v.reduced.varies && !v.reduced.linear) return name + ": the reduced dims do not collapse to one row stride";
    if (v.reduced.varies && v.outer.varies && !v.inner.varies)
      return name + ": varies along the reduced and the outer kept dims but not the innermost kept ones";
    if (auto why = kept_addressable(v, name, !(general_inputs && general_row_input(v)))) return why;
    column_input |= v.reduced.varies && v.inner.varies;
  }
  if (!column_input) return "no input varies along both the reduced dims and the innermost kept dims";
  return std::nullopt;
}

int outer_vec(const ScheduleContext& cx, const std::vector<OperandView>& views, const std::vector<char>& vectorized,
              int64_t hk) {
  int widest = 1;
  for (size_t k = 0; k < views.size(); ++k)
    if (vectorized[k]) widest = std::max(widest, dtype_size(cx.facts.operands[k].dtype));
  int vec = 16 / widest;
  for (; vec > 1; vec /= 2) {
    bool ok = hk % vec == 0;
    for (size_t k = 0; k < views.size(); ++k) {
      if (!vectorized[k]) continue;
      const uint64_t bytes = static_cast<uint64_t>(vec) * dtype_size(cx.facts.operands[k].dtype);
      if (cx.facts.operands[k].address % bytes || views[k].reduced.stride % vec || views[k].outer.stride % vec) ok = false;
    }
    if (ok) break;
  }
  return vec;
}

int accumulator_bytes(DType out) { return out == DType::F64 || out == DType::I64 ? 8 : 4; }

OuterNormSmem outer_norm_smem(const KernelParams& p, const OuterNormBytes& b) {
  const int64_t ty = std::max(1, p.rows_per_block), tx = p.threads / ty, cols = tx * p.vec;
  OuterNormSmem s;
  s.combine = int64_t{p.threads / 32 + 1} * cols * b.planes * b.plane_bytes;
  if (p.staged) s.staging = 2 * cols * ty * b.staged_elem_bytes;
  if (p.cluster > 1) s.exchange = int64_t{p.cluster} * cols * b.exchange_per_column + 16 * b.steps;
  return s;
}

int64_t pow2ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

}  // namespace solder
