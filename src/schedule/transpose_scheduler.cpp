// Transposes: pointwise segments whose operands disagree on their fastest dim (a transposed or
// permuted input, an output written through a permute, NCHW -> NHWC). The flat template reads
// such an operand one element at a time across its fast dim; the transpose template
// (codegen/kernel_transpose.cpp) tiles the two dims (transpose_view.h) and stages the operands
// that are fast along the tile's rows through shared memory, so every global access is a
// coalesced vector along its operand's fast dim.
//
// Its plans set shape.category = Transpose and shape.tile (the segment stays Pointwise), on
// which codegen and launch_grid dispatch; the launch facts and the parameter block are the
// pointwise ones (the kernel reads its dims and strides from p.dims and p.stride).
//
// Full reductions whose inputs disagree likewise (var_mean over every dim of x * y with x
// permuted: the flat template read y element by element across its layout): their element
// order is free, so the same tiles fold each element into the flat template's accumulators
// (transpose_reduces: its outputs are all scalars) and the flat template's grid combine ends the kernel; the grid is at
// most one resident wave (launch_grid). Registered before full_reduction, which keeps the rest.
// Partial reductions whose two inputs disagree along kept dims tile those and loop over the
// reduced dims inside each tile (transpose_view.h); registered before outer and inner.
#include <algorithm>

#include "schedule/launch_grid.h"
#include "schedule/registry.h"
#include "schedule/stages.h"
#include "schedule/transpose_view.h"

namespace solder {

namespace {

constexpr int kMinThreads = 256;
constexpr int kMaxThreads = 512;
constexpr int kTileRows = 64;
// Registers of a column-folding tile besides its items' values and accumulators (the
// addresses, the loop's indices, the staged slots): see candidates.
constexpr int kTileBaseRegisters = 36;
constexpr int kTileCols = 64;
constexpr int kMaxStaticSmem = 48 * 1024;

class TransposeScheduler final : public Scheduler {
 public:
  const char* name() const override { return "transpose"; }

  std::optional<std::string> cannot_schedule(const ScheduleContext& cx) const override {
    std::string why;
    if (!transpose_view(cx, &why)) return why;
    return std::nullopt;
  }

  std::vector<KernelPlan> candidates(const ScheduleContext& cx) const override {
    const std::optional<TransposeView> v = transpose_view(cx, nullptr);
    KernelPlan plan = base_plan(cx.fusion, cx.segment, cx.segment_index, cx.shape, cx.facts);
    plan.shape.category = KernelCategory::Transpose;
    if (plan.name.rfind("solder_pw_", 0) == 0) plan.name = "solder_transpose_" + plan.name.substr(10);
    if (!v) return {plan};  // not a transpose: an impossible plan, refused by the compile driver
    plan.shape.tile = v->tile;
    // Full reductions: explain says why they left the flat template (full_reduction).
    const bool cross = tile_reduces_cols(v->tile);
    if (tile_reduces_all(v->tile))
      plan.why = v->why + ": the inner template would read one of them element by element; a tile per kept index folds every "
                          "element into the block's accumulators, the chunks split over blocks where the kept indices are few";
    else if (cross)
      plan.why = v->why + ": the inner and outer templates would read one of them element by element; each tile row folds its "
                          "reduced columns, the chunks split over blocks where the kept tiles are few";
    else if (cx.segment.category == KernelCategory::Inner)
      plan.why = v->why + ": the inner and outer templates would read one of them element by element; each tile loops over the "
                          "reduced dims (" + std::to_string(v->reduced) + " elements), folding into its elements' accumulators";
    if (cx.segment.category == KernelCategory::Full)
      plan.why = v->why + ": the flat template would read one of them element by element; staged tiles fold into the "
                          "reduction's accumulators";
    std::vector<int> staged_sizes;
    for (size_t k = 0; k < plan.operands.size(); ++k) {
      plan.operands[k].access = v->access[k];
      if (v->access[k] == Access::Staged) staged_sizes.push_back(dtype_size(cx.facts.operands[k].dtype));
    }
    // Direct operands: vectors along the columns (their row stride must keep rows aligned);
    // staged ones: vectors along the rows (their column stride likewise).
    const int vec = transpose_vec(cx, *v, {Access::Full, Access::Col}, v->row_stride);
    const int tile_vec = transpose_vec(cx, *v, {Access::Staged}, v->col_stride);
    // The tile: 64 x 64 elements (at least 32 slots of every staged operand: 64 x 128 for
    // bytes), whatever the element size, so a 4-byte operand's segments along either side are
    // 256 bytes (measured, the f32 cat of seed 6 #119 over rows of 770: 64 x 32 102.1 us, 32 x 64
    // 83.4, 64 x 64 at 512 threads 80.7; the 16-bit tiles of 64 x 64 run at 93-96 % of a copy).
    // 32 rows where the rows are few or the tiles would pass 48 KB, then 32 slots of columns.
    const int min_cols = transpose_tile_cols(staged_sizes);
    int tile_cols = std::max(kTileCols, min_cols);
    // A tile that reduces its columns holds an item's accumulators per thread: 32 rows (one
    // item a thread at 512 threads; 64 rows took 92 registers and one block per SM).
    int tile_rows = v->rows <= 32 || cross ? 32 : kTileRows;
    while (tile_rows > 32 && transpose_smem_bytes(staged_sizes, tile_rows, tile_cols) > kMaxStaticSmem) tile_rows /= 2;
    while (tile_cols > min_cols && transpose_smem_bytes(staged_sizes, tile_rows, tile_cols) > kMaxStaticSmem) tile_cols /= 2;
    // Tiles under two per SM take 32 rows, so more blocks share the work (the golden 37 x 1030
    // bf16 transpose-add: 17 tiles of 64 rows 8.3 us, 34 of 32 rows 6.3; perf-notes 2026-12-04
    // 18:30). Partial reductions, which loop over the reduced dims inside each tile, then take
    // as few columns as the slots allow.
    auto tiles = [&](int r, int c) { return v->batch * ((v->rows + r - 1) / r) * ((v->cols + c - 1) / c); };
    while (tile_rows > 32 && tiles(tile_rows, tile_cols) < 2 * cx.device.sm_count) tile_rows /= 2;
    if (v->tile.reduced_lo >= 0 && !cross)
      while (tile_cols > min_cols && tiles(tile_rows, tile_cols) < 2 * cx.device.sm_count) tile_cols /= 2;
    // Threads: two 16-byte vectors of the widest tiled operand per thread for each side of the
    // tile (64 x 64 f16: 256 threads; f32: 512), at least 256 and at most 512. Where the tiles
    // fill the device's resident threads at the staged operands' count, direct operands wider
    // than the staged ones take more vectors per thread instead (a bf16 input staged into an f32
    // output, 10368 tiles: 512 threads 129 us, 256 100); few tiles keep the threads (64 tiles:
    // 8.5 us at 512, 10.4 at 256; 1040 tiles, 98 % of the resident threads at 256: 23.0
    // against 24.3; perf-notes, seed 11 #080, #000, #111).
    int widest_bytes = 1, staged_bytes = 1;
    for (size_t k = 0; k < plan.operands.size(); ++k) {
      if (v->access[k] == Access::Full || v->access[k] == Access::Col || v->access[k] == Access::Staged)
        widest_bytes = std::max(widest_bytes, dtype_size(cx.facts.operands[k].dtype));
      if (v->access[k] == Access::Staged) staged_bytes = std::max(staged_bytes, dtype_size(cx.facts.operands[k].dtype));
    }
    const int64_t resident_threads = int64_t{cx.device.sm_count} * cx.device.max_threads_per_sm;
    auto threads_for = [&](int rows, int cols) {
      const int staged = std::clamp(rows * cols * staged_bytes / 32, kMinThreads, kMaxThreads);
      return tiles(rows, cols) * staged >= resident_threads ? staged : std::clamp(rows * cols * widest_bytes / 32, kMinThreads, kMaxThreads);
    };
    // 32-bit index math where every offset fits (fewer registers: 38 against 55 for the f16
    // transpose-copy, so 6 blocks per SM instead of 4).
    const bool index32 = fits_index32(cx.facts);
    // Tiles that fold their reduced columns hold each of a thread's items through the chunk
    // loop: its VEC loaded values and its accumulators (a var_mean's four floats: the shifted
    // sums, the shift, the count). A register cap under kTileBaseRegisters more than those spilled
    // every time (seeds 27 #117 and 30 #051 at 40 registers, 30 #037's var_mean at 64: 1.3 s of
    // its first call's 1.8 in compiles that spilled), so such caps are not compiled.
    int state = 0;
    if (cross && !tile_reduces_all(v->tile))
      for (const ReductionStep& st : plan_stages(cx.fusion, cx.segment, cx.shape, false, false).steps) state += st.welford ? 4 : 1;
    std::vector<KernelPlan> out;
    // `resident`: the threads per SM the register cap (min_blocks) keeps.
    auto add = [&](int vc, int tv, int rows, int cols, int resident) {
      KernelParams& p = plan.params;
      p = KernelParams{};
      p.index32 = index32;
      if (cross && !tile_reduces_all(v->tile)) {  // a tile row's TC / VEC lanes within a warp, or two (transpose_view checked the vec allows it)
        cols = std::clamp(32 * vc, min_cols, cols);
        vc = std::max(vc, cols / 64);
      }
      p.vec = std::min(vc, cols);
      p.threads = threads_for(rows, cols);
      p.tile_rows = rows;
      p.tile_cols = cols;
      p.tile_vec = tv;
      p.min_blocks = std::max(1, resident / p.threads);
      p.unroll = 1;
      if (state > 0 && p.min_blocks > 1) {
        const int items = std::max(1, rows * cols / p.vec / p.threads);
        if (cx.device.register_cap(int64_t{p.min_blocks} * p.threads) < kTileBaseRegisters + items * (p.vec + state)) return;
      }
      // Tiles of kept dims take the split form only where these facts split them (its
      // reduced loop at the grid's stride and the splits' merge cost an unsplit kernel: seed 16
      // #007, 4 reduced indices a tile, 82 -> 94 us with them).
      if (v->tile.reduced_lo >= 0 && !cross) {
        p.grid_split = true;  // asks launch_grid whether these facts split the tiles
        p.grid_split = launch_grid(plan, cx.facts, cx.device, std::max(1, resident / p.threads), 0).y > 1;
      }
      out.push_back(plan);
    };
    // With 32-bit indices first 1536 threads resident (a 40-register cap), then 1024 (64), then
    // 512; after spills, narrower vectors and 32-row tiles; the last (single elements, uncapped)
    // always compiles. Where the 40 cap spills a 64-row tile, a 32-row one at 1024: before the
    // 64-row one where its blocks are smaller (twice the blocks an SM, each waiting on its own
    // tile's barrier), else after it, before the 512 that would halve the resident threads.
    const bool halves = index32 && tile_rows > 32;
    const bool smaller_blocks = halves && threads_for(32, tile_cols) < threads_for(tile_rows, tile_cols);
    if (index32) add(vec, tile_vec, tile_rows, tile_cols, 1536);
    if (smaller_blocks) add(vec, tile_vec, 32, tile_cols, 1024);
    add(vec, tile_vec, tile_rows, tile_cols, 1024);
    if (halves && !smaller_blocks) add(vec, tile_vec, 32, tile_cols, 1024);
    add(vec, tile_vec, tile_rows, tile_cols, 512);
    for (int vc = vec, tv = tile_vec; vc > 1 || tv > 1;) {
      vc = std::max(1, vc / 2);
      tv = std::max(1, tv / 2);
      add(vc, tv, 32, tile_cols, 512);
    }
    add(1, 1, 32, tile_cols, 1);
    return out;
  }
};

}  // namespace

const Scheduler& transpose_scheduler() {
  static const TransposeScheduler s;
  return s;
}

}  // namespace solder
