#pragma once
// Run-time facts of one kernel launch (sizes, strides, addresses in kernel order) and what
// every scheduler derives from them first: each operand's access class and the widest vector
// every vectorized operand allows. Sizes are facts, never part of a plan.
#include <cstdint>
#include <string>
#include <vector>

#include "schedule/kernel_plan.h"

namespace solder {

struct OperandFacts {
  DType dtype;
  std::vector<int64_t> strides;  // per kernel dim (kernel order), 0 where broadcast
  uint64_t address = 0;          // or its alignment class: only `address % kAlignClass` matters
  Access access = Access::General;  // how its address depends on (row, col): see Access
  int64_t ld = 0;                   // row stride for Row/Full access
};

struct LaunchFacts {
  std::vector<int64_t> dims;  // kernel order
  int64_t R = 1, C = 1;
  std::vector<OperandFacts> operands;  // parallel to KernelShape::operands
  std::vector<int64_t> bounds;         // values of symbolic_bounds (pads, windows) at these sizes
  // Pads and windows (a cat's pieces): whether the kernel reads any, and each index along the
  // innermost kernel dim where one begins or ends (the flat template tests a vector chunk
  // once, so a vector must not cross one: `windows_fit`).
  bool windowed = false;
  std::vector<int64_t> window_cuts;
};

// Whether vectors of `vec` elements keep every chunk inside or outside each pad and window:
// vec divides the innermost dim (a chunk stays in one index of the outer dims) and every cut.
bool windows_fit(const LaunchFacts& facts, int vec);
// Fills facts.windowed and window_cuts for segment s (facts.bounds already set).
void add_window_facts(const Fusion& f, const Segment& s, const KernelShape& ks, LaunchFacts& facts);

// Value of a pad's or window's bound `d` (attrs.bound_start / bound_end of a node the kernel
// reads) at these facts: its constant, or its slot's value (symbolic_bounds order).
int64_t bound_value(const std::vector<Dim>& symbolic, const LaunchFacts& facts, const Dim& d);

// Allocations are aligned to this many bytes (the caching allocator and cuMemAlloc give at
// least 256), so `address % kAlignClass` is all a plan may depend on.
constexpr uint64_t kAlignClass = 256;

// Kernel-order dims, R and C, and each operand's kernel-order strides from its shape/strides
// (right-aligned; reduction outputs without keepdim map to kept dims), then each operand's
// access class and row stride. Pointwise kernels: refines ks.split to the widest column block
// every operand addresses linearly (the rows/columns split is part of the plan).
LaunchFacts make_facts(const Fusion& f, const Segment& s, KernelShape& ks, const std::vector<int64_t>& domain,
                       const std::vector<std::vector<int64_t>>& operand_shapes,
                       const std::vector<std::vector<int64_t>>& operand_strides, const std::vector<uint64_t>& addresses);

// The plan every scheduler starts from: shape, operands with their access classes, name.
KernelPlan base_plan(const Fusion& f, const Segment& s, int segment_index, const KernelShape& ks,
                     const LaunchFacts& facts);

// Bytes of the widest operand that is read or written as vectors (Full or Col), at least 1.
int widest_vector_operand(const KernelPlan& plan, const LaunchFacts& facts);

// Flat plans (pointwise, full reduction) address a General operand's row dims apart from its
// column dims: the row part once per row (per kernel dim where the row dims do not collapse to
// one stride: `rows_by_dim`), the column part per element. `access` is the class of its column
// part: Row (no column dim varies: one element per row), Full (unit stride: vectors from a row
// base) or General (element by element). Any other operand: its access class, rows at one stride.
struct FlatColumns {
  Access access;
  bool rows_by_dim;
};
FlatColumns flat_columns(const LaunchFacts& facts, int k, int split);

// Whether every row of operand k starts at a multiple of `vec` elements from its first row:
// each row dim's stride (dims of size > 1) is a multiple of vec (for rows at one stride: ld).
bool row_steps_divisible(const LaunchFacts& facts, int k, int split, int vec);

// One row of R x C (KernelParams::one_row) whose rows are not vec-aligned: whether full/dims
// operand k's vectors of `vec` at the flat index (each starting at a multiple of vec) lie in one
// run of it, starting aligned (OperandPlan::segments of a flat plan): its address is
// vec-aligned and every row dim (of size > 1) steps by its dense stride (C times the row dims
// inside it) or, where vec divides that, by a multiple of vec (its index never changes inside a
// vector: a [1, M, K] operand broadcast over B, with M x K a multiple of vec).
bool flat_segments(const LaunchFacts& facts, int k, int split, int vec);

// Whether General operand k's vectors of `vec` each lie in one run of the innermost kernel dim
// at unit stride and start aligned: vec divides that dim's size and every other dim's stride,
// and the operand's address is vec-aligned (OperandPlan::segments).
bool general_segments(const LaunchFacts& facts, int k, int vec);

// Flat plans (pointwise, full reduction): why the plan's vectors would not be aligned at these
// facts (a pinned plan: `--plan one_row=0` where the operands' phases differ), or empty: every
// vector a flat kernel loads or stores starts at a multiple of its bytes.
std::string flat_vectors_misfit(const KernelPlan& plan, const LaunchFacts& facts);

// The widest vector (16 bytes of the widest operand at most) that every vectorized operand's
// address, row stride and the row length allow (`tail_ok`: a single row may end in a masked
// tail, so C need not divide).
int widest_vec(const KernelPlan& plan, const LaunchFacts& facts, bool tail_ok);

// Phase-shifted rows: the element step g of every row's phase (a power of two below v that
// divides the row length), when all row-varying operands share the same phase in every row
// (same start modulo v elements, same row stride modulo v), every weight is aligned to g
// elements and no operand is read element by element in general form; else 0. Rows then start
// at multiples of g elements past a v-aligned address: weights load g elements at a time.
int phase_step(const KernelPlan& plan, const LaunchFacts& facts, int v);

// Inner held rows with every Full input read at its own phase (KernelParams::shift, see
// write_inner): the widest vector that the row length and the other vectorized operands (outputs,
// weights) allow, as widest_vec, where each Full input is element-aligned with rows at least a
// row apart (|ld| >= C, or one row) and no operand is read element by element (General); else 1.
int shifted_inner_vec(const KernelPlan& plan, const LaunchFacts& facts);

}  // namespace solder
