#pragma once
// Horizontal fusion, the segmenter's half: independent kernel segments that would generate the
// same kernel (one structure: the same ops, attributes, dtypes and ranks, node by node) become
// one group, so the executor may run them as one launch whose block index picks the member
// (exec: group_launch). "Independent": no path between any two members in the segment DAG, and
// the DAG with each group contracted to one node stays acyclic (two groups must not need each
// other: {A, B} and {C, D} with A -> C and D -> B). Members are then made contiguous in
// `segments` (a topological order of the contracted DAG that keeps the given order wherever it
// can; untouched when no group forms), so a group runs at one point of the launch program.
// Whether stacking pays depends on sizes, so the executor decides per launch signature which
// members launch together (docs/architecture.md, "Horizontal fusion").
#include "segment/segment.h"

namespace solder {

// Forms sf.groups (and sets each member's Segment::group), records the candidates left out in
// sf.group_notes, and reorders sf.segments so members are contiguous. segment_fusion calls it
// before verify_segments.
void group_independent_segments(SegmentedFusion& sf);

// True when kernel segments a and b would generate the same kernel code up to value names:
// the same category, domain rank, reduced axes, and node by node the same op, attributes,
// operand dtypes and ranks, reading corresponding operands (constants of equal value).
bool same_structure(const Fusion& f, const Segment& a, const Segment& b);

// For every segment, the segments it reads from (its direct predecessors in the DAG).
std::vector<std::vector<int>> segment_predecessors(const SegmentedFusion& sf);

}  // namespace solder
