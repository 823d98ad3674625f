#pragma once
// Splits a fusion into segments, each run by one mechanism:
//  * Kernel  — a fused CUDA kernel over one iteration domain (pointwise, inner/row reduction
//              incl. persistent normalization, or full reduction to a scalar).
//  * View    — reshape/permute/expand/squeeze/unsqueeze/slice of an already materialized
//              tensor: new strides on the same memory, no launch (seed 003's bookend lesson);
//              a copy only when strides cannot express the result.
//  * Cat     — each operand written into its slice of one buffer.
//  * Matmul  — matmul/linear through cuBLASLt.
// Segments are listed in execution order; a value produced in one segment and used in a later
// one is an output of the first (materialized) and an input of the second.
#include <string>
#include <vector>

#include "solder/fusion.h"

namespace solder {

enum class SegmentKind { Kernel, View, Cat, Matmul };
// Outer and Transpose are never made by the segmenter: the outer scheduler takes Inner segments
// whose reduced dims are not the memory-innermost, the transpose scheduler Pointwise segments
// whose operands disagree on their fastest dim, and each sets its category in its plans
// (KernelPlan::shape.category), so codegen and launch_grid dispatch on the plan, not on the segment.
enum class KernelCategory { Pointwise, Inner, Full, Outer, Transpose };

struct Segment {
  SegmentKind kind = SegmentKind::Kernel;
  std::vector<int> nodes;    // node indices, fusion order
  std::vector<int> inputs;   // value ids read from memory (never constants)
  std::vector<int> outputs;  // value ids materialized by this segment
  // Kernel segments only.
  KernelCategory category = KernelCategory::Pointwise;
  Shape domain;                    // the iteration space, as declared (original dim order)
  std::vector<int64_t> reduce_axes;  // Inner: reduced dims of `domain`; Full: all dims
  int group = -1;  // its horizontal group (SegmentedFusion::groups), -1: none
};

// Independent kernel segments of one structure that may run as one launch (horizontal fusion,
// segment/horizontal.h): contiguous in `segments`, listed in order. The executor decides at
// each launch signature which members pay to stack (sizes are known only then).
struct SegmentGroup {
  std::vector<int> members;
  std::string why;
};

struct SegmentedFusion {
  Fusion fusion;  // after passes; node/value ids refer to this
  std::vector<Segment> segments;
  std::vector<SegmentGroup> groups;
  std::vector<std::string> group_notes;  // candidates not grouped, each with why
};

SegmentedFusion segment_fusion(Fusion f);

// Throws solder::Error unless every segment reads only what is in memory when it runs: fusion
// inputs, and values written by an earlier segment (a view's output is its source's memory).
// Kernels read their segment's inputs and inline constants; a view, cat or matmul reads every
// operand of its node from memory, constants included. Every program output is written.
// segment_fusion checks its result with it.
void verify_segments(const SegmentedFusion& sf);
// The groups' part of verify_segments: every group has two or more kernel members, contiguous
// and in order, each naming its group, none reading another member's output (so no path runs
// between members), and no segment names a group that does not list it.
void verify_groups(const SegmentedFusion& sf);

const char* segment_kind_name(SegmentKind k);
// Whether a kernel segment reads a window or a pad (a cat's pieces, passes/cat_pieces.h): only
// the flat template masks those reads, so only the pointwise scheduler takes such a segment.
bool reads_pads_or_windows(const Fusion& f, const Segment& s);
// The pad or window node that makes value v, or nullptr for any other value.
const Node* pad_or_window(const Fusion& f, int v);
// The values whose windows mask a kernel's read of v: v itself where a pad or window makes it,
// then the pads that pad (a pad of several dims, one pad a dim: passes/cat_pieces.cpp merges
// pads along one axis); empty for any other value. A read is inside all of them.
std::vector<int> pad_chain(const Fusion& f, int v);
const char* kernel_category_name(KernelCategory c);
// One line per segment: kind, category, domain, nodes' ops, inputs -> outputs.
std::string describe_segments(const SegmentedFusion& s);

}  // namespace solder
