// Outer (column) reductions: Inner segments whose reduced dims are not the memory-innermost of
// their inputs (a column sum of [B, H], var_mean over dim 0, a mean over the middle axis of a
// 3-d tensor, batch-norm statistics over [N*H*W, C]). The inner template reads such inputs one
// element at a time (General access); the outer template (codegen/kernel_outer.cpp) views the
// domain as [reduced rows, kept columns], kept innermost, so its loads are coalesced 16-byte
// vectors along the kept axis.
//
// Its plans keep the segment's kernel order [kept | reduced], so the launch facts and the
// parameter block are the inner ones (p.R counts kept columns, p.C reduced rows), and set
// shape.category = Outer, on which codegen and launch_grid dispatch. Their operands' access
// classes describe the transposed view: Full (rows of the reduced index at a row stride, unit
// kept columns), Col (kept only, unit stride), Row (reduced only) and Scalar.
#include <algorithm>

#include "schedule/outer_view.h"
#include "schedule/registry.h"
#include "schedule/stages.h"

namespace solder {

namespace {

// Rows (of the reduced dims) a thread takes at least per split in the grid form: fewer leave
// the partials' traffic and the last block's combine a visible share of the work.
constexpr int64_t kMinIterationsPerSplit = 8;
constexpr int kOuterThreads = 256;
constexpr int kOuterUnroll = 4;
// Lanes per row in the grid form (see add() in candidates; measured: perf-notes 2026-11-26).
constexpr int kSplitLanes = 16;
// Steps of UNROLL rows a thread's loop takes at most for the 2048-thread candidate (see add()
// in candidates()).
constexpr int64_t kShortLoopSteps = 4;

// The phased vector (16 bytes of the widest column input) where every column input allows it:
// strides not negative (a thread's rows then stay inside [its first row, its last row] of the
// storage), at least 4 bytes per vector of each (whole words for phase_shift), and an inner
// kept run of at least one vector; else 1.
int phased_vec(const ScheduleContext& cx, const std::vector<OperandView>& views, const std::vector<char>& full, int64_t hk) {
  int widest = 1;
  for (size_t k = 0; k < views.size(); ++k)
    if (full[k]) widest = std::max(widest, dtype_size(cx.facts.operands[k].dtype));
  const int v = 16 / widest;
  if (v < 2 || hk < v) return 1;
  for (size_t k = 0; k < views.size(); ++k) {
    if (!full[k]) continue;
    if (static_cast<int64_t>(v) * dtype_size(cx.facts.operands[k].dtype) < 4) return 1;
    for (int64_t st : cx.facts.operands[k].strides)
      if (st < 0) return 1;
  }
  return v;
}

class OuterScheduler final : public Scheduler {
 public:
  const char* name() const override { return "outer"; }

  std::optional<std::string> cannot_schedule(const ScheduleContext& cx) const override {
    int ki = 0;
    int64_t inner_kept = 1;
    if (auto why = outer_inputs_problem(cx, ki, inner_kept)) return why;
    const Fusion& f = cx.fusion;
    for (size_t k = cx.shape.num_inputs; k < cx.shape.operands.size(); ++k) {
      const OperandView v = view_of(cx, k, ki);
      const std::string name = "output " + f.value(cx.shape.operands[k]).name;
      if (v.reduced.varies) return name + " varies along the reduced dims: element outputs (outer_norm)";
      // Any linear stride along the inner kept run: st_cols stores such columns one by one (a
      // reduction of a permuted input into the declared layout, the outputs the smaller side).
      if (auto why = kept_addressable(v, name, false)) return why;
    }
    const StagePlan sp = plan_stages(f, cx.segment, cx.shape, false, false);
    if (sp.max_level > 1) return "a reduction reads another's result (outer_norm)";
    return std::nullopt;
  }

  std::vector<KernelPlan> candidates(const ScheduleContext& cx) const override {
    const LaunchFacts& facts = cx.facts;
    KernelPlan plan = base_plan(cx.fusion, cx.segment, cx.segment_index, cx.shape, facts);
    plan.shape.category = KernelCategory::Outer;
    if (plan.name.rfind("solder_red_", 0) == 0) plan.name = "solder_outer_" + plan.name.substr(11);
    // The access classes of the transposed view [reduced rows, kept columns]; the widest
    // vector every column input's address, row stride and outer kept stride allow, which
    // divides the inner kept size (a vector never straddles an outer kept index).
    int64_t inner_kept = 1;
    bool early = false;
    const int ki = kept_split(cx, inner_kept, &early);
    plan.params.kept_run = early;
    std::vector<OperandView> views;
    std::vector<char> full_access;
    for (size_t k = 0; k < plan.operands.size(); ++k) {
      const OperandView v = view_of(cx, k, ki);
      views.push_back(v);
      const bool kept = v.outer.varies || v.inner.varies;
      Access& a = plan.operands[k].access;
      a = kept && v.reduced.varies ? Access::Full : kept ? Access::Col : v.reduced.varies ? Access::Row : Access::Scalar;
      full_access.push_back(a == Access::Full);
    }
    const int vec = outer_vec(cx, views, full_access, inner_kept);
    // Phase-shifted kept columns (see write_outer) where the aligned vector is narrower than the
    // phased one: an inner kept run that VEC does not divide (K = 4097) or inputs off the vector
    // grid. Each row then loads two aligned vectors and shifts them: 16-byte loads instead of
    // one element (measured: perf-notes, the outer phased grid).
    // Only where the aligned vector is under half the phased one: the shifts cost more than
    // 8-byte aligned loads save (bf16 16384 x 3068: aligned vec 4 55.1 us, phased 64.0; x 3071:
    // vec 1 71.1, phased 64.5; [64, 100, 4097] amax: 48.9 -> 35.7; perf-notes 2026-11-26).
    const int pvec = phased_vec(cx, views, full_access, inner_kept);
    int widest_full = 1;
    for (size_t k = 0; k < views.size(); ++k)
      if (full_access[k]) widest_full = std::max(widest_full, dtype_size(facts.operands[k].dtype));
    const bool phased = 2 * vec < pvec;
    const int64_t K = facts.R, rows = facts.C;
    std::vector<KernelPlan> out;
    auto add = [&](int v, int unroll, int min_blocks, bool ph) {
      KernelParams& p = plan.params;
      // Threads along the kept columns: a warp's worth of vectors per row where the columns
      // allow (a warp then reads 32 x 16 contiguous bytes of a row), fewer for narrow tensors;
      // the rest of the block's 256 threads along the rows. Phased tiles lie inside one outer
      // kept index, so the vectors that count are an index's.
      const int64_t vectors = ph ? (inner_kept + v - 1) / v : (K + v - 1) / v;
      // Few reduced rows: no more threads along the rows than UNROLL-row steps fill (a var_mean
      // over a batch of 4 put 8 threads on each column's 4 rows, half of them idle, and merged
      // them through shared memory: 16 % of a copy, seed 7 #083), the rest along the columns.
      const int64_t ty_fill = std::clamp<int64_t>(pow2ceil((rows + unroll - 1) / unroll), 1, kOuterThreads);
      int tx = static_cast<int>(std::min<int64_t>(std::max<int64_t>(32, kOuterThreads / ty_fill), pow2ceil(vectors)));
      auto tiles = [&](int t) { return ph ? K / inner_kept * ((vectors + t - 1) / t) : (vectors + t - 1) / t; };
      const int64_t resident = int64_t{cx.device.sm_count} * std::max(1, cx.device.max_threads_per_sm / kOuterThreads);
      // The grid form where the kept tiles alone leave the device short of two waves of
      // resident blocks (estimated at full occupancy) and the rows are long enough to split.
      // Its tile's last block merges every split's partials, TY splits per round trip to L2,
      // while the rest of the device idles: half a warp per row (16-byte vectors: 256-byte
      // segments, whole sectors) doubles TY and halves both the splits and the rounds.
      const bool split_form = tiles(tx) < 2 * resident && rows >= 2 * (kOuterThreads / tx) * unroll * kMinIterationsPerSplit;
      if (split_form) tx = std::min(tx, kSplitLanes);
      // Half a warp per row doubles the rows each split takes. Where that leaves the rows too
      // few for this candidate's rows in flight and the tiles alone short of one block an SM,
      // fewer rows in flight (seed 26 #127, var_mean over 1000 rows of 770 columns: 7 blocks,
      // 49.9 us; split at unroll 2, 16.6); where the tiles fill the SMs, no split (seed 29 #081:
      // 512 tiles 44.6 us; split at unroll 2, 52.9).
      const int64_t split_rows = 2 * (kOuterThreads / tx) * kMinIterationsPerSplit;
      if (split_form && tiles(tx) < cx.device.sm_count)
        while (unroll > 1 && rows < split_rows * unroll) unroll /= 2;
      const bool split = split_form && rows >= split_rows * unroll;
      // Too few rows to split and too few kept tiles to reach every SM (a min over dim 0 of 100
      // x 12288: 48 blocks of 32 lanes; a mean over a batch of 2 of 32768 columns: 16 blocks of
      // 256): narrower tiles, down to 128 bytes of a row per step (whole sectors), the block
      // shrinking with them where the rows leave no more threads to fill (ty_fill), to a warp.
      int threads = kOuterThreads;
      while (!split && tiles(tx) < cx.device.sm_count && static_cast<int64_t>(tx / 2) * v * widest_full >= 128 &&
             (tx / 2) * std::min<int64_t>(ty_fill, kOuterThreads / (tx / 2)) >= 32) {
        tx /= 2;
        threads = static_cast<int>(tx * std::min<int64_t>(ty_fill, kOuterThreads / tx));
      }
      // 2048 threads resident (32 registers) only where the grid is more than a wave of 1024
      // threads an SM and each thread's loop is short (at most kShortLoopSteps steps of UNROLL
      // rows, the block form): a block's fixed costs (addresses, the combine through shared
      // memory, the writes) are then a large share of its time, and twice the blocks overlap
      // them. Longer loops keep more loads in flight under 64 registers; a grid of one wave
      // gains nothing from the cap (perf-notes 2026-12-04 20:30).
      if (min_blocks * kOuterThreads > 1024 &&
          (split || rows > kShortLoopSteps * unroll * (threads / tx) ||
           tiles(tx) * threads <= int64_t{cx.device.sm_count} * 1024))
        return;
      p.vec = v;
      p.threads = threads;
      p.rows_per_block = threads / tx;
      p.unroll = unroll;
      p.min_blocks = min_blocks;
      p.grid_split = split;
      p.col_vec = ph ? 1 : 0;
      if (out.empty() || !(out.back().params == p)) out.push_back(plan);
    };
    // First 1024 threads resident (min_blocks 4: a 64-register cap; uncapped, ptxas took 71
    // registers for the column sum and 117 for var_mean, 2 blocks per SM). Fallbacks after
    // spills: fewer rows in flight, then 512 threads resident (128 registers: batch-norm
    // statistics, a Welford step and a max, spill under 64 even one row at a time), then
    // narrower vectors; the last (one element, one row at a time, uncapped) always compiles.
    // Phased plans come first where they apply, the aligned ones after them.
    // Before those, 2048 threads resident where add() finds the loops short (see there).
    const int twice = std::max(1, 2048 / kOuterThreads), full = std::max(1, 1024 / kOuterThreads),
              half = std::max(1, 512 / kOuterThreads);
    // A Welford step's phased vectors of 8 spill at kOuterUnroll rows in flight: half the vector
    // keeps the rows in flight before the full vector takes half of them (seed 30 #021, var_mean
    // of a sliced bf16 16384 x 4096: vec 4 unroll 4 78.6 us, vec 8 unroll 2 85.9; not a mean's
    // (seed 27 #014: 85.6 against 82.8), whose vector of 8 spilled the same way).
    // Two or more phased inputs hold twice the vectors a row (two aligned loads, a phase and a
    // pointer per input and row: 88 registers uncapped for two f32 inputs at vec 4, unroll 4),
    // where half the vector spills at kOuterUnroll rows too and the full one at 2 (seed 31 #080,
    // var_mean of x * y over sliced f32 1024 x 8192): half the vector at 2 rows in flight keeps
    // the 64-register cap before half the threads resident (46.5 us against 54.1).
    if (phased) {
      const std::vector<ReductionStep> steps = plan_stages(cx.fusion, cx.segment, cx.shape, false, false).steps;
      const bool welford = std::any_of(steps.begin(), steps.end(), [](const ReductionStep& st) { return st.welford; });
      // Full operands are inputs only: an output never varies along the reduced rows.
      const auto phased_inputs = std::count(full_access.begin(), full_access.end(), 1);
      add(pvec, kOuterUnroll, twice, true);
      add(pvec, kOuterUnroll, full, true);
      const bool halve = welford && pvec > 2 && (2 * vec < pvec / 2 || phased_inputs >= 2);
      if (halve) add(pvec / 2, kOuterUnroll, full, true);
      if (halve && phased_inputs >= 2) add(pvec / 2, 2, full, true);
      add(pvec, 2, full, true);
      add(pvec, kOuterUnroll, half, true);
      add(pvec, 2, half, true);
      add(pvec, 1, half, true);
    }
    add(vec, kOuterUnroll, twice, false);
    add(vec, kOuterUnroll, full, false);
    add(vec, 2, full, false);
    add(vec, kOuterUnroll, half, false);
    add(vec, 2, half, false);
    add(vec, 1, half, false);
    for (int v = vec / 2; v >= 1; v /= 2) add(v, 1, v == 1 ? 1 : half, false);
    return out;
  }
};

}  // namespace

const Scheduler& outer_scheduler() {
  static const OuterScheduler s;
  return s;
}

}  // namespace solder
