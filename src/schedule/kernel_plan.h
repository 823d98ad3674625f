#pragma once
// A KernelPlan is everything codegen needs to write one kernel: the category, the iteration
// domain in kernel order (row dims, then column dims; reduced dims are the column dims of an
// inner reduction), how each operand is addressed, and the scheduler's parameters. It is a
// small value: it validates, prints (for `solder explain`), parses back (`--plan`), compares,
// hashes and keys the kernel cache. Sizes are NOT part of it: one compiled kernel serves every
// size with the same plan.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "segment/segment.h"

namespace solder {

// How an operand's address depends on (row, col) of the collapsed [R, C] domain.
enum class Access : uint8_t {
  Scalar,   // one element
  Row,      // depends on row only: base + row * ld          (e.g. a [B, 1] statistic)
  Col,      // depends on col only, unit stride: base + col  (e.g. a [H] weight)
  Full,     // base + row * ld + col, unit column stride     (vectorizable)
  General,  // arbitrary strides over every domain dim       (one element at a time)
  Staged,   // transpose plans: unit stride along the tile's rows, not its columns: read or
            // written as vectors along the rows and staged through shared memory.
            // Inner persistent plans: an input unit-stride along the rows and linear along the
            // columns (the transposed input of a norm): a block's rows are copied into a shared-
            // memory tile a column's run of rows at a time, then read there (see write_inner)
};
const char* access_name(Access a);

struct KernelParams {
  int vec = 1;              // elements per vector access (16 bytes of the widest operand at most)
  int threads = 256;        // threads per block
  int threads_per_row = 0;  // inner: threads cooperating on one row (a power of two below 64, else warps)
  int rows_per_block = 1;   // inner: threads / threads_per_row; outer: threads along the reduced
                            // rows (TY: the other threads / TY lie along the kept columns)
  int batch = 0;            // inner: vectors per thread held in registers; 0 = looped over the row
  int unroll = 1;           // pointwise/full: vectors per thread per row in flight; outer: rows
                            // per thread whose loads are in flight at once
  int min_blocks = 1;       // inner, outer: __launch_bounds__ minimum resident blocks (caps registers)
  bool prefetch = false;    // inner persistent: one resident wave of blocks walks the rows, and
                            // loads its next row while this one reduces (hides DRAM latency)
  bool prefetch_smem = false;  // ... into shared memory (cp.async) instead of registers
  bool ldg_weights = false;    // ... and the weights through the read-only path (__ldg)
  bool tickets = false;        // ... and its blocks take their later rows by ticket, not at a
                               // fixed stride (balances rows across SMs; see write_inner)
  int weight_ring = 0;         // ... and the weights stream through a ring of this many slots
                               // (a vector per thread each) in shared memory (see write_inner)
  int dyn_smem = 0;            // bytes of dynamic shared memory (the shared-memory prefetch)
  bool recompute = false;   // inner persistent: values cheaply made from a held 16-bit one are
                            // recomputed where read, not held (see plan_stages)
  int cluster = 1;          // inner persistent, rows longer than a block holds (sm_90): a row split
                            // over a cluster of this many blocks, each holding its share in
                            // registers; reductions combine through distributed shared memory.
                            // outer_norm: the reduced rows of a kept tile split over the cluster's
                            // blocks (2..16; past 8 the non-portable cluster size)
  int row_split = 1;        // inner persistent, few long rows: a row split over this many blocks of
                            // the grid, each holding its share in registers; reductions combine
                            // through partials in global scratch (see write_inner), so the few
                            // rows fill the device
  int resident = 0;         // inner persistent, one row per block: weights (bit i: the i-th column
                            // operand) each thread copies once into shared memory, where every
                            // row reads its columns of them (see write_inner)
  int col_vec = 0;          // inner persistent, rows not vec-aligned (phase-shifted rows): each
                            // row loads the aligned vectors that overlap it, and column operands
                            // (weights), at the row's phase, load col_vec elements at a time
  bool grid_split = false;  // outer: the reduced rows split over gridDim.y blocks, each leaving its
                            // partials in scratch and the last block of a kept tile combining them
                            // (the grid form, see write_outer); launch_grid picks the split.
                            // transpose: tiles of kept dims split their reduced indices likewise
                            // (write_partial)
  int tile_rows = 0;        // transpose: a tile's extent along its rows (the staged operands' unit-
  int tile_cols = 0;        // stride dims) and along its columns (the direct operands'), elements
  int tile_vec = 0;         // transpose: elements per vector of a staged operand (along the rows)
  bool index32 = false;     // transpose: 32-bit index math (every operand's offsets and the tiles
                            // fit 31 bits at these sizes: fewer registers than 64-bit math);
                            // flat: 32-bit division of row and column indices into kernel dims
                            // (rows in flight, row_unroll: 32-bit rows and row offsets too)
  bool one_row = false;     // pointwise, every Full operand dense over [R, C]: the domain taken as
                            // one row of R x C elements, so vectors stay aligned across row ends;
                            // each vector finds its row and column (one division), one that
                            // crosses a row end takes its elements one by one. With col_vec=1 the
                            // rows are not vec-aligned: column and full/dims operands are read
                            // element by element (see write_flat)
  bool interleave = false;  // one_row with col_vec=1: a thread's VEC elements lie 32 apart, so each
                            // load or store of a warp takes 32 consecutive elements (element by
                            // element at the thread's consecutive ones, a warp's load spanned
                            // VEC x 32 elements: VEC times the L1 wavefronts); every operand is
                            // then read and written element by element
  bool staged = false;      // outer_norm: element outputs addressed General in the view (their kept
                            // columns not unit-stride) are staged through shared memory and stored
                            // as vectors along the reduced rows (see write_outer_norm)
  int smem_rows = 0;        // outer_norm, held rows: of the `batch` rows a thread holds, the first
                            // smem_rows in dynamic shared memory (cp.async, `dyn_smem` bytes), the
                            // rest in registers (see write_outer_norm)
  bool shift = false;       // pointwise 2-D grid: every Full input is read at its own phase (rows that
                            // do not start vector-aligned, a cat's piece at an odd offset): where its
                            // row's address is aligned, one vector; else the two aligned vectors
                            // around the thread's elements, shifted (element by element where they
                            // would leave the row or the pad's window); outputs and weights keep
                            // aligned vectors, windows need not align with vec (see write_flat).
                            // Inner held rows (batch > 0): every Full input likewise, its phase
                            // once per row from its row's address (see write_inner)
  int row_unroll = 1;       // pointwise 2-D grid (no one_row, shift or unroll): each block
                            // takes row_unroll consecutive rows of its pass (blockIdx.x) per
                            // step and each thread issues its vector of
                            // every one (and each row's row-constant loads) before the first
                            // use, so a thread has row_unroll rows' loads in flight, not one
                            // (see write_flat); printed only above 1
  bool kept_run = false;    // outer plans: the inner kept run ends where an operand's part of it
                            // stops being one stride, before the first input's contiguous run
                            // does (an output in the declared layout of a permuted input's kept
                            // dims); the kernel then checks each operand's strides (see
                            // outer_kept_run). Set only where the run ends early, so other
                            // kernels keep their code; printed only when set
  int max_registers = 0;    // a register cap per thread (__maxnreg__) in place of min_blocks'
                            // __launch_bounds__ cap; 0: none (a user override, `--plan max_registers=N`)

  // Space-separated `key=value` / flag tokens; parse_params reads it back.
  std::string str() const;
  uint64_t hash() const;
  bool operator==(const KernelParams&) const = default;
};

// Reads KernelParams::str() back; also takes `key=value` pairs separated by commas, with
// `batch` for `persistent_batch` and 0/1 values for flags. Unnamed parts keep `into`'s values;
// `given` receives the parts named (by their printed keys). Throws solder::Error naming an
// unknown key or a bad value.
KernelParams parse_params(const std::string& text, KernelParams into = {}, std::set<std::string>* given = nullptr);

struct OperandPlan {
  int value = -1;
  bool is_output = false;
  Access access = Access::General;
  // Flat plans: the operand's row dims do not collapse to one stride (a [1, M, 1] or [B, 1, K]
  // operand of [B, M] rows), so the kernel computes its row's offset from the row's index per
  // kernel dim, once per row; `access` then says how its columns are addressed (Row: they are
  // not, one element per row; Full: unit stride, vectors from the row's base; General: per
  // element). Printed as `row/dims`, `full/dims`, `general/dims`.
  bool rows_by_dim = false;
  // Inner plans: a General input whose innermost kernel dim is unit-stride, with `vec` dividing
  // its size and every other stride and its address vec-aligned (general_segments): each vector
  // lies in one run of that dim, so it loads as one from its first element's offset. Printed
  // `general/seg`. One_row flat plans: a full/dims operand whose vectors at the flat index lie
  // in one aligned run of it (flat_segments), loaded as vectors though rows are not vec-aligned
  // (`full/dims/seg`).
  bool segments = false;
};

// An operand's access as plans print it (key, explain): `row/dims`, `full/dims/seg`.
std::string access_text(const OperandPlan& o);

// One row of R x C whose rows are not vec-aligned (one_row, col_vec=1): a full/dims operand not
// in runs at the flat index (segments) is read element by element, its vectors not starting at
// its rows' starts.
inline bool one_row_dims_by_element(const KernelParams& p, const OperandPlan& o) {
  return p.one_row && p.col_vec == 1 && o.access == Access::Full && o.rows_by_dim && !o.segments;
}

// Transpose plans: the kernel dims a tile spans. [row_lo, row_hi) are its rows, one linear index
// that the staged operands walk at unit stride; [col_lo, col_hi) its columns, which the direct
// operands walk at unit stride; every other kernel dim is looped over (batch).
struct TileDims {
  int row_lo = 0, row_hi = 0, col_lo = 0, col_hi = 0;
  // Partial reductions (an inner segment's kernel dims [reduced_lo, rank) reduced, all outside
  // the tile): each tile folds them into accumulators per element; -1 for none.
  int reduced_lo = -1;
  bool operator==(const TileDims&) const = default;
};

// Compile-time structure of a kernel segment (independent of sizes and pointers).
struct KernelShape {
  KernelCategory category = KernelCategory::Pointwise;
  std::vector<int> dim_order;  // kernel-order position -> dim of Segment::domain
  int split = 0;               // kernel-order dims [0, split) are rows, the rest columns
  std::vector<int> operands;   // value ids: segment inputs then outputs
  int num_inputs = 0;
  std::vector<uint32_t> span;  // per fusion value: bit k set = varies along kernel dim k
  TileDims tile;               // transpose plans only (set by the transpose scheduler)
};

// Analyzes a kernel segment: kernel dim order (rows then reduced dims), split, spans. `order`:
// for a pointwise segment, its domain dims outermost first (its outputs' memory order, so that
// a permuted output and the inputs in its layout are walked at unit stride); for an inner
// segment, its kept dims then its reduced dims, each in any order (see inner_reduction_order),
// ignored where it is not of that form; empty: as declared.
KernelShape analyze_kernel(const Fusion& f, const Segment& s, const std::vector<int>& order = {});
// An inner segment's order for analyze_kernel, from its dominant input's strides (the input over
// the whole domain, none of it broadcast, with the most bytes; ties: the first), largest first
// (size-1 dims first, ties in declared order):
// - where that input's unit-stride dim is a kept dim other than the declared innermost kept one,
//   its kept dims in that order, then its reduced dims as declared: the kept columns end in its
//   unit-stride run, which the outer schedulers read as vectors (the mean over dim 0 of a
//   [B, M, K] laid out [B, K, M]);
// - else, reducing several axes, its kept dims as declared, then its reduced dims in that order,
//   where that ends the columns in a unit-stride run: a reduction over several axes of a
//   permuted input reads it as vectors (full or general/seg), not element by element.
// Either only where more bytes move in unit-stride runs along the innermost kept (or reduced)
// dim than in the declared order (a permuted x times a contiguous y, a norm of a permuted x into
// a contiguous output: one of them is strided either way). Empty: the declared order. Operands
// parallel to KernelShape::operands (the segment's inputs, then its outputs; the outputs may be
// left out): shapes, strides (elements), element bytes.
std::vector<int> inner_reduction_order(const Segment& s, const std::vector<std::vector<int64_t>>& shapes,
                                       const std::vector<std::vector<int64_t>>& strides, const std::vector<int>& elem_bytes);
// A tensor's dims from the largest stride to the smallest (size-1 dims first, ties in declared
// order); empty where that is the declared order.
std::vector<int> memory_order(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);

// The kernel dim (kernel order) along which value v, a pad or a window (a cat's pieces), masks;
// -1 for any other value.
int window_dim(const Fusion& f, const KernelShape& ks, int v);
// Whether value v's index along its window_dim takes a division or remainder: that dim is not
// the only one of the kernel's rows (or columns). False for any other value.
bool window_divides(const Fusion& f, const KernelShape& ks, int v);

// The symbolic bounds (size expressions: a cat of pieces of sizes H, K+-64) of the pads and
// windows kernel segment s reads, each once, in the order the kernel's parameters hold their
// values (`p.bound[i]`, evaluated from the launch's sizes: LaunchFacts::bounds). Constant
// bounds stay literals in the code. Empty for most kernels (their parameters have no bounds).
std::vector<Dim> symbolic_bounds(const Fusion& f, const Segment& s);
// Slot of symbolic bound d in symbolic_bounds, or -1 (a constant).
int bound_slot(const std::vector<Dim>& bounds, const Dim& d);

struct KernelPlan {
  KernelShape shape;
  std::vector<OperandPlan> operands;  // parallel to shape.operands
  KernelParams params;
  std::string name;  // solder_<cat>_<ops>_<segment>
  // Why the scheduler chose this shape where a model decided it (the split rows' cost model),
  // printed by `solder explain`; not part of the key (it changes no code).
  std::string why;
  // Everything that changes the generated code, as text (the cache key adds the fusion hash).
  std::string key() const;
  std::string describe(const Fusion& f) const;
  // What makes this plan impossible for its category's template (empty when none): a
  // combination codegen would have to drop silently is an error here instead.
  std::vector<std::string> problems() const;
  // Throws solder::Error listing problems(), naming the kernel.
  void validate() const;
};

// Inner plans' staged inputs (Access::Staged, see write_inner): a block's tile holds RPB rows of
// BATCH x TPR x VEC elements (every column a persistent row may have) at a row pitch, in
// elements, chosen so that a warp's copies of runs of rows and its vector reads along a row hit
// distinct banks; `es` is the element's bytes. Bytes: the tile, rounded to 16.
int64_t staged_tile_pitch(const KernelParams& p, int es);
int64_t staged_tile_bytes(const KernelParams& p, int es);
// Whether an inner plan reads a staged operand as VEC-element vectors (4 to 16 bytes), not
// element by element.
bool staged_tile_vectors(const KernelParams& p, int es);

}  // namespace solder
