#pragma once
// The transposed view the outer schedulers (outer_scheduler.cpp: kept-level outputs;
// outer_norm_scheduler.cpp: normalizations) take of an Inner segment whose reduced dims are
// not the memory-innermost: [reduced rows, kept columns], the kept dims split into an *inner
// kept run* (trailing kept dims that the first input varying along the reduced and the kept
// dims lays out contiguously at unit stride, HK elements) and the *outer kept dims* before it.
// Column kc of an operand lies at (kc / HK) x (outer stride) + (kc % HK) x (inner stride).
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

// The kernel position of the inner kept run's first dim; `hk` receives its size (1: no input
// has a kept dim as its memory-innermost).
int kept_split(const ScheduleContext& cx, int64_t& hk);

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
// dims and the inner kept run. Why not, or nothing; `ki`, `hk` receive the split.
std::optional<std::string> outer_inputs_problem(const ScheduleContext& cx, int& ki, int64_t& hk);

// The widest vector (16 bytes of the widest `vectorized` operand at most) that divides HK and
// every such operand's address, row stride and outer kept stride allow.
int outer_vec(const ScheduleContext& cx, const std::vector<OperandView>& views, const std::vector<char>& vectorized,
              int64_t hk);

int64_t pow2ceil(int64_t v);

}  // namespace solder
