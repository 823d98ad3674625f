#pragma once
// The tiled view the transpose scheduler (transpose_scheduler.cpp) takes of a pointwise segment
// whose operands disagree on their fastest dim: a transposed or permuted input beside a
// contiguous output, an output written through a permute (the kernel writing straight into a
// caller's contiguous buffer of its transpose), an NCHW -> NHWC layout change.
//
// Two operands that both vary along two kernel dims but are unit-stride along different ones
// make the pattern. The *column* dim is the unit-stride dim of the operands with the most bytes
// (ties: an output's), the *row* dim the other one's; each grows into the longest run of
// adjacent kernel dims over which every operand stays one linear index (NCHW -> NHWC: rows
// [H, W], columns [C]); every other kernel dim is looped over (batch). Operands then are:
//   Full / Col  unit-stride along the columns: read or written as vectors along them;
//   Staged      unit-stride along the rows: read (written) as vectors along the rows, through a
//               tile in shared memory;
//   Row / Scalar  not varying along the columns (along neither): read once per row (tile);
//   General     anything else (a strided slice): one element at a time.
// The pointwise scheduler refuses exactly what this view takes, so `solder explain` says why.
// Partial reductions whose two inputs disagree on their fastest kept dims (a sum over dim 0 of
// x * y, x permuted) tile those kept dims and loop over the reduced ones inside each tile, every
// tile element folding into its own accumulators (TileDims::reduced_lo); outputs are the
// reductions' results and the math on them.
// Partial reductions where no two inputs disagree along kept dims but one input is fast along a
// reduced dim and another along a kept one (a var over dim 1 of x * y with x transposed) take
// tiles of [kept rows x reduced columns] (tile_reduces_cols): each tile row folds its columns,
// the column chunks and the other reduced dims loop (split over gridDim.y where the kept tiles
// are few), and the lanes of a row, then the splits, combine. Two inputs fast along different
// reduced dims take tiles whose rows are reduced too (tile_reduces_all): a tile per kept index.
// Full reductions (every dim reduced, scalar outputs only) whose inputs disagree take the same
// view over the reduced domain: their element order is free, so the tiles fold the elements
// into the reduction's accumulators (transpose_reduces) and full_reduction keeps the rest.
#include <optional>
#include <string>
#include <vector>

#include "schedule/scheduler.h"

namespace solder {

struct TransposeView {
  TileDims tile;
  std::vector<Access> access;  // per operand (parallel to KernelShape::operands)
  int64_t rows = 1, cols = 1;  // the tile dims' extents
  int64_t batch = 1;           // the product of the other kept dims
  int64_t reduced = 1;         // partial reductions: the product of the reduced dims
  std::vector<int64_t> row_stride, col_stride;  // per operand: its stride along the rows, columns
  std::string why;             // one line: which operands disagree (for explain)
};

// Tiles narrower than this along either dim leave most of a 32 x 32 tile empty: the flat
// template (reading through the cache) is left those.
constexpr int64_t kMinTransposeExtent = 16;

// The view, or nothing with `why` set to the reason the segment is not a transpose.
std::optional<TransposeView> transpose_view(const ScheduleContext& cx, std::string* why);

// Whether a partial reduction's tile columns are reduced dims (see above): the tiles of a launch
// are its kept tiles only, and a tile row's columns fold into one accumulator.
inline bool tile_reduces_cols(const TileDims& t) { return t.reduced_lo >= 0 && t.col_lo >= t.reduced_lo; }
// ... and its rows too (two inputs fast along different reduced dims: seed 22 #062, a var over
// [1, 2] of x * y with x permuted): a tile per kept index, every element of it folding into the
// block's accumulators.
inline bool tile_reduces_all(const TileDims& t) { return t.reduced_lo >= 0 && t.row_lo >= t.reduced_lo; }

// The widest vector (16 bytes of the widest of `which` operands at most) that every such
// operand's address, stride along `other_stride` (the tile's other dim) and batch strides allow.
int transpose_vec(const ScheduleContext& cx, const TransposeView& v, const std::vector<Access>& which,
                  const std::vector<int64_t>& other_stride);

// Whether a transpose plan is a full reduction's (the view of a Full segment): its outputs are
// all scalars (a pointwise segment's outputs span its domain), so its tiles fold their elements
// into accumulators and the grid combines them (kernel_transpose.cpp, launch_grid).
bool transpose_reduces(const KernelPlan& plan);

// Bytes of shared memory a plan's tiles take: for each staged operand, tile_rows rows of
// tile_cols elements, packed into 4-byte slots (8 for 8-byte elements).
int transpose_smem_bytes(const std::vector<int>& staged_sizes, int tile_rows, int tile_cols);

// Elements of a staged operand of `bytes`-byte elements in one shared-memory slot.
inline int slot_elems(int bytes) { return bytes >= 4 ? 1 : 4 / bytes; }

// A tile's extent along the columns for these staged element sizes: each staged operand's row
// of the tile fills at least 32 slots (one per bank), so the swizzle stays inside the row.
int transpose_tile_cols(const std::vector<int>& staged_sizes);

}  // namespace solder
