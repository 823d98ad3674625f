#pragma once
// The transposed view the outer schedulers (outer_scheduler.cpp: kept-level outputs;
// outer_norm_scheduler.cpp: normalizations) take of an Inner segment whose reduced dims are
// not the memory-innermost: [reduced rows, kept columns], the kept dims split into an *inner
// kept run* (trailing kept dims that the first input varying along the reduced and the kept
// dims, with a kept dim as its memory-innermost, lays out contiguously at unit stride, HK
// elements) and the *outer kept dims* before it.
// Column kc of an operand lies at (kc / HK) x (outer stride) + (kc % HK) x (inner stride).
#include <algorithm>
#include <optional>
#include <string>

#include "schedule/scheduler.h"

namespace solder {

// How an operand varies over kernel dims [lo, hi) of size > 1: not at all, or as one linear
// index (each dim's stride = the next one's stride x its size) whose innermost stride is
// `stride`, or otherwise (not linear).
struct Part {
  bool varies = false;
  bool linear = true;
  int64_t stride = 0;
};
Part part_of(const LaunchFacts& facts, const OperandFacts& of, int lo, int hi);

// The kernel position of the inner kept run's first dim: the first input's contiguous kept dims
// ending in its memory-innermost, as far as every operand's part of them is one stride; `hk`
// receives its size (1: no input has a kept dim as its memory-innermost); `ended_early`, whether an
// operand's stride ended it (outer_kept_run: plans then take KernelParams::kept_run).
int kept_split(const ScheduleContext& cx, int64_t& hk, bool* ended_early = nullptr);

// An operand over the three groups of kernel dims: outer kept, inner kept, reduced.
struct OperandView {
  Part outer, inner, reduced;
};
OperandView view_of(const ScheduleContext& cx, size_t k, int ki);

inline bool unit_linear(const Part& p) { return p.linear && p.stride == 1; }

// Why the kept part of operand `name` is not addressable as (column / HK) x the outer stride +
// (column % HK) x the inner stride (`unit_inner`: that stride must be 1), or nothing.
std::optional<std::string> kept_addressable(const OperandView& v, const std::string& name, bool unit_inner = true);

// Checks shared by both outer schedulers: the segment is Inner, some input has a kept dim as
// its memory-innermost, every input's groups collapse, and one input varies along the reduced
// dims and the inner kept run. Why not, or nothing; `ki`, `hk` receive the split. With
// `general_inputs` (outer_norm), an input whose reduced rows are unit-stride may have kept
// columns that are not (a contiguous residual beside a transposed input): it is read General,
// element by element, a warp's rows of a column being contiguous.
std::optional<std::string> outer_inputs_problem(const ScheduleContext& cx, int& ki, int64_t& hk, bool general_inputs = false);

// An input read General by outer_norm: varies along the reduced rows at unit stride and along
// the inner kept run at another (linear) stride.
inline bool general_row_input(const OperandView& v) {
  return v.reduced.varies && v.reduced.linear && v.reduced.stride == 1 && v.inner.varies && v.inner.linear &&
         v.inner.stride != 1;
}

// The widest vector (16 bytes of the widest `vectorized` operand at most) that divides HK and
// every such operand's address, row stride and outer kept stride allow.
int outer_vec(const ScheduleContext& cx, const std::vector<OperandView>& views, const std::vector<char>& vectorized,
              int64_t hk);

int64_t pow2ceil(int64_t v);

// Bytes of a reduction's accumulator in registers (f16/bf16 and bool accumulate in 32 bits).
int accumulator_bytes(DType out);

// Shared memory of an outer_norm block (codegen/kernel_outer_norm.cpp), the one count the
// scheduler's model and the template both use: the block combine (per plane, the warps'
// partials and the totals, [W + 1][VEC][TX]), the staged outputs' two tiles of [TX x VEC
// columns][TY rows] (aliasing the combine: a barrier separates them) and, in a cluster, the
// exchange slots (every block's totals of every step) with their mbarriers. All static: the
// total must stay within 48 KB.
struct OuterNormBytes {
  int planes = 1;         // planes of the widest combine (3: Welford)
  int plane_bytes = 4;    // bytes per combine plane element (8 for f64/i64 accumulators)
  int exchange_per_column = 0;  // sum over the steps of planes x accumulator bytes
  int steps = 0;
  int staged_elem_bytes = 0;    // sum over the staged outputs of their element bytes
};
struct OuterNormSmem {
  int64_t combine = 0, staging = 0, exchange = 0;
  int64_t total() const { return std::max(combine, staging) + exchange; }
};
OuterNormSmem outer_norm_smem(const KernelParams& p, const OuterNormBytes& b);
constexpr int64_t kOuterNormStaticSmem = 48 * 1024;
// Dynamic shared memory of an outer_norm block holding `smem_rows` of its rows there: per held
// slot and thread one vector of every Full input (`full_in_bytes`: the sum of their element
// bytes), [input][slot][thread].
inline int64_t outer_norm_row_smem(const KernelParams& p, int full_in_bytes) {
  return int64_t{p.smem_rows} * p.threads * p.vec * full_in_bytes;
}

}  // namespace solder
