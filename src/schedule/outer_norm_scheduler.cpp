// Outer persistent normalizations: Inner segments whose reduced dims are not the
// memory-innermost of their inputs and that use the statistics back at full size (softmax,
// log_softmax, layer or rms norm over a leading or middle axis, or over the rows of a
// transposed view; masked and scaled variants; several outputs). The outer scheduler takes
// those with kept-level outputs only; this one the rest. Template: codegen/kernel_outer_norm.cpp.
//
// The view is the outer scheduler's (outer_view.h): [reduced rows RR, kept columns K], the
// plan keeping the segment's kernel order (p.R = K, p.C = RR) with shape.category = Outer. A
// block owns a tile of TX x VEC kept columns (coalesced vectors along the memory-innermost kept
// axis) and TY = rows_per_block threads along the rows; a thread holds `batch` rows of its
// columns in registers (row ty + i TY), so every pass after the first reads registers; with
// batch 0 (rows too long to hold) each pass reads the rows again from global memory (L2). The
// passes' reductions combine across the block (warp shuffles, then shared memory) and every
// thread gets the statistics of its columns.
#include <algorithm>

#include "schedule/outer_view.h"
#include "schedule/registry.h"
#include "schedule/stages.h"

namespace solder {

namespace {

// Registers a thread may spend on held rows under the 64-register cap of 1024 resident
// threads (the rest: addresses, statistics, the pass's math), and under 128 (512 resident).
constexpr int kHeldRegs64 = 32, kHeldRegs128 = 80;
// Rows a thread holds at most: each pass is unrolled over them.
constexpr int kMaxBatch = 16;
// Shared memory of the block combine (static, under the 48 KB without opt-in).
constexpr int64_t kCombineBytes = 48 * 1024;

class OuterNormScheduler final : public Scheduler {
 public:
  const char* name() const override { return "outer_norm"; }

  std::optional<std::string> cannot_schedule(const ScheduleContext& cx) const override {
    int ki = 0;
    int64_t hk = 1;
    if (auto why = outer_inputs_problem(cx, ki, hk)) return why;
    bool element_output = false;
    for (size_t k = cx.shape.num_inputs; k < cx.shape.operands.size(); ++k) {
      const OperandView v = view_of(cx, k, ki);
      const std::string name = "output " + cx.fusion.value(cx.shape.operands[k]).name;
      if (v.reduced.varies && !v.reduced.linear) return name + ": its reduced dims do not collapse to one row stride";
      if (v.reduced.varies && !v.outer.varies && !v.inner.varies) return name + " varies along the reduced dims only";
      if (auto why = kept_addressable(v, name, false)) return why;
      element_output |= v.reduced.varies;
    }
    if (!element_output && plan_stages(cx.fusion, cx.segment, cx.shape, false, false).max_level <= 1)
      return "kept-level outputs of one level of reductions (outer)";
    return std::nullopt;
  }

  std::vector<KernelPlan> candidates(const ScheduleContext& cx) const override {
    const LaunchFacts& facts = cx.facts;
    KernelPlan plan = base_plan(cx.fusion, cx.segment, cx.segment_index, cx.shape, facts);
    plan.shape.category = KernelCategory::Outer;
    // solder_<red|norm>_<ops>: solder_outer_norm_<ops>.
    const size_t ops = plan.name.find('_', plan.name.find('_') + 1);
    plan.name = "solder_outer_norm" + plan.name.substr(ops);
    int64_t hk = 1;
    const int ki = kept_split(cx, hk);
    // Access classes of the transposed view. An operand whose kept columns are not unit-stride
    // (the output of a norm over a transposed input) is General: one element at a time.
    std::vector<OperandView> views;
    std::vector<char> vectorized;
    int held_bytes = 0;  // bytes per column of one row that a thread holds (its Full inputs)
    for (size_t k = 0; k < plan.operands.size(); ++k) {
      const OperandView v = view_of(cx, k, ki);
      views.push_back(v);
      const bool kept = v.outer.varies || v.inner.varies, unit = !v.inner.varies || unit_linear(v.inner);
      Access& a = plan.operands[k].access;
      a = kept && v.reduced.varies ? (unit ? Access::Full : Access::General)
          : kept                   ? (unit ? Access::Col : Access::General)
          : v.reduced.varies       ? Access::Row
                                   : Access::Scalar;
      vectorized.push_back(a == Access::Full);
      if (a == Access::Full && !plan.operands[k].is_output) held_bytes += dtype_size(facts.operands[k].dtype);
    }
    const int vec0 = outer_vec(cx, views, vectorized, hk);
    int widest = 1;
    for (size_t k = 0; k < views.size(); ++k)
      if (vectorized[k]) widest = std::max(widest, dtype_size(facts.operands[k].dtype));
    const int64_t K = facts.R, RR = facts.C;
    const int planes = 3;  // the most shared-memory planes a reduction combines (Welford)
    std::vector<KernelPlan> out;
    auto smem_ok = [&](int vec, int tx, int threads) {
      return int64_t{threads / 32 + 1} * vec * tx * 8 * planes <= kCombineBytes;
    };
    auto add = [&](int vec, int tx, int threads, int batch, int unroll, int min_blocks) {
      while (tx > 1 && !smem_ok(vec, tx, threads)) tx /= 2;  // the combine's shared memory fits
      KernelParams& p = plan.params;
      p.vec = vec;
      p.threads = threads;
      p.rows_per_block = threads / tx;
      p.batch = batch;
      p.unroll = unroll;
      p.min_blocks = min_blocks;
      out.push_back(plan);
    };
    // Held registers per row: a vector of each Full input, 16-bit ones two to a register.
    auto held_regs = [&](int vec) { return std::max(1, (vec * held_bytes + 3) / 4); };
    // Threads along the kept columns: a 128-byte line of the widest operand per row, no wider
    // than the columns; at least one.
    auto tx_for = [&](int vec) {
      const int64_t vectors = (K + vec - 1) / vec;
      return static_cast<int>(std::clamp<int64_t>(std::min<int64_t>(128 / (vec * widest), pow2ceil(vectors)), 1, 32));
    };
    // Persistent plans: the widest tile whose rows a block of 256, 512 or 1024 threads holds
    // within the register budget (1024 threads resident: 64 registers), then 512 resident.
    for (int budget : {kHeldRegs64, kHeldRegs128}) {
      const int resident = budget == kHeldRegs64 ? 1024 : 512;
      bool found = false;
      for (int tx = tx_for(vec0); tx >= 1 && !found; tx /= 2)
        for (int threads : {256, 512, 1024}) {
          if (threads > resident || threads / tx < 1 || !smem_ok(vec0, tx, threads)) continue;
          const int64_t batch = (RR + threads / tx - 1) / (threads / tx);
          if (batch > kMaxBatch || batch * held_regs(vec0) > budget) continue;
          add(vec0, tx, threads, static_cast<int>(batch), 1, resident / threads);
          found = true;
          break;
        }
    }
    // Re-reading plans (rows too long to hold, or spills): each pass streams the rows again,
    // `unroll` rows' loads in flight; narrower vectors last (one element always compiles).
    // Narrower tiles where the columns leave the device short of two blocks per SM (the rows
    // are then long: each block re-reads its tile from L2), and 1024 threads where still short.
    int tx = tx_for(vec0);
    auto tiles = [&](int t, int v) { return (K + int64_t{t} * v - 1) / (int64_t{t} * v); };
    while (tx > 1 && tiles(tx, vec0) < 2 * int64_t{cx.device.sm_count}) tx /= 2;
    const int threads = tiles(tx, vec0) < cx.device.sm_count ? 1024 : 256, mb = 1024 / threads;
    add(vec0, tx, threads, 0, 4, mb);
    add(vec0, tx, threads, 0, 2, std::max(1, mb / 2));
    add(vec0, tx, threads, 0, 1, std::max(1, mb / 2));
    for (int v = vec0 / 2; v >= 1; v /= 2) add(v, std::min(32, tx * vec0 / v), threads, 0, 1, v == 1 ? 1 : std::max(1, mb / 2));
    return out;
  }
};

}  // namespace

const Scheduler& outer_norm_scheduler() {
  static const OuterNormScheduler s;
  return s;
}

}  // namespace solder
