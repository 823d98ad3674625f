#pragma once
// Orders the work inside one reduction kernel. A value's *stage* counts the reduction phases
// that must finish before it exists: inputs are stage 0; a reduction whose operand has stage s
// runs at level s+1 and its result has stage s+1 (var_mean takes two levels: the mean, then the
// squared deviations around it — exact two-pass statistics, the row is in registers anyway).
// Element pass q computes what stage-q element values need and feeds level-(q+1) reductions.
// In a persistent kernel, element values computed in an earlier pass and needed later are
// kept in registers ("materialized"), so global memory is read once. A looped kernel reads the
// row again in every pass, so there var_mean takes one level: Welford's update per thread and
// Chan's merge across threads (a pass fewer: the row is read twice for a layer norm, not three
// times).
#include <vector>

#include "schedule/kernel_plan.h"

namespace solder {

struct ReductionStep {
  int node = -1;        // the reduction node
  Op kind = Op::Sum;    // Sum, Max, Min, Mean, or VarMean (mean step) / VarMean (var step)
  bool var_step = false;
  int input = -1;       // operand value
  int level = 1;
  bool welford = false;  // VarMean in one step (looped rows): see plan_stages
};

struct StagePlan {
  std::vector<int> stage;       // per value
  std::vector<char> in_kernel;  // per value: produced by this segment
  std::vector<char> row_level;  // per value: constant along the reduced (column) dims
  std::vector<ReductionStep> steps;
  int max_level = 0;
  std::vector<int> materialized;  // element values held in registers across passes
  std::vector<int> last_pass;     // per materialized value: the last pass that reads it
};

// `persistent` selects whether materialization is planned (looped kernels recompute);
// `recompute`, whether cheap 32-bit values of one held 16-bit value are recomputed where read
// instead of held (fewer registers, more arithmetic: the scheduler's last resort).
StagePlan plan_stages(const Fusion& f, const Segment& s, const KernelShape& ks, bool persistent, bool recompute);

// The f16/bf16 value whose bits represent held value v exactly (v itself, or the operand of a
// widening cast), or -1. Such values are held as 16-bit bits, two to a 32-bit register: the
// row takes half the registers, which is what lets the wide rows keep their loads in flight.
int narrow_source(const Fusion& f, int v);

// Held rows hold an input's bits; where the input reaches the kernel's reductions and outputs
// only through one value of the same size (a float dtype), computed from it with element ops, constants
// and values constant along the reduced dims (a scaled, rounded and masked f16 input), the rows
// may hold that value's bits instead: computed once as the rows load, not again in every pass.
struct HeldCut {
  int input = -1;  // the input value
  int value = -1;  // the value held in its place
};
// The deepest such value of each input in `inputs` that has one (element op outputs, no segment
// output on the way).
std::vector<HeldCut> held_cuts(const Fusion& f, const Segment& s, const StagePlan& sp, const std::vector<int>& inputs);

}  // namespace solder
