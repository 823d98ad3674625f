// Inner reductions and persistent normalizations: rows of the collapsed [R, C] domain reduced
// along C, through the inner template (codegen/kernel_inner.cpp). docs/architecture.md walks
// through the plan shapes (held rows, prefetch, weight ring, resident weights, clusters,
// phase-shifted rows, looped rows) and why each exists; the measurements are in perf-notes.
#include <algorithm>
#include <numeric>

#include "schedule/registry.h"
#include "schedule/stages.h"

namespace solder {

namespace {

int64_t pow2ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// Vectors a thread holds at most: the template unrolls its batch loops fully.
constexpr int64_t kMaxBatch = 16;
// Shared memory a block keeps free beside a plan's dynamic shared memory: its static
// reductions and the driver's reserve per block, with room to spare.
constexpr int64_t kSmemReserve = 8192;
// Looped rows: one thread per this many vectors of the row, a power of two from a warp to a block.
constexpr int64_t kLoopedVectorsPerThread = 8;

// Phase-shifted rows: the element step g of every row's phase (a power of two below v that
// divides the row length), when all row-varying operands share the same phase in every row
// (same start modulo v elements, same row stride modulo v), every weight is aligned to g
// elements and no operand is read element by element in general form; else 0. Rows then start
// at multiples of g elements past a v-aligned address: weights load g elements at a time.
int phase_step(const KernelPlan& plan, const LaunchFacts& facts, int v) {
  int phase = -1, ld = -1;
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    const Access a = plan.operands[k].access;
    const uint64_t es = dtype_size(facts.operands[k].dtype);
    if (a == Access::General || (plan.operands[k].is_output && a == Access::Col)) return 0;
    if (a != Access::Full) continue;
    if (facts.operands[k].address % es) return 0;
    const int ph = static_cast<int>(facts.operands[k].address / es % v), l = static_cast<int>(facts.operands[k].ld % v);
    if ((phase >= 0 && ph != phase) || (ld >= 0 && l != ld)) return 0;
    phase = ph;
    ld = l;
  }
  if (phase < 0) return 0;
  const int g = std::gcd(v, std::gcd(phase, std::gcd(ld, static_cast<int>(facts.C % v))));
  for (size_t k = 0; k < plan.operands.size(); ++k)
    if (plan.operands[k].access == Access::Col &&
        facts.operands[k].address % (static_cast<uint64_t>(g) * dtype_size(facts.operands[k].dtype)))
      return 0;
  return g;
}

// Threads per row for rows of `nvec` vectors of `vec`: the fewest (at least a warp) that give
// each thread at most 32 row elements (4 vectors of 8). Autotune on the H200 (2026-11-23,
// perf-notes) found 4 vectors per thread best or within 2% at every W1, softmax and rms size
// from 2048 to 32768.
int64_t base_threads_per_row(int64_t nvec, int vec) {
  int64_t tpr = 32;
  if (nvec <= 16) tpr = std::max<int64_t>(1, pow2ceil(nvec));  // very short rows: several per warp
  while (tpr < 1024 && ((nvec + tpr - 1) / tpr) * vec > 32) tpr *= 2;
  // Past 512 threads, whole warps rather than a power of two: H = 20480 f16 takes 640 threads
  // with 4 vectors each, where 1024 threads x 3 left a third of the last batch empty.
  if (tpr == 1024) tpr = std::min<int64_t>(1024, ((nvec + 32 / vec - 1) / (32 / vec) + 31) / 32 * 32);
  return tpr;
}

// Fewest warps that cover the row with t's batch: at H = 5140 (1285 vectors of 4) 256
// threads x 6 left the sixth batch nearly empty (16% of the work for nothing); 224 x 6 fits.
// Not for 1024-thread rows: fewer threads would lift their register cap (see min_blocks).
int64_t trimmed_threads(int64_t t, int64_t nvec) {
  const int64_t b = (nvec + t - 1) / t;
  return t >= 64 && t <= 512 ? std::min<int64_t>(t, ((nvec + b - 1) / b + 31) / 32 * 32) : t;
}

// Phase-shifted rows keep their partial vectors in the last batch, so the batches before it
// must hold whole vectors at every phase (see write_inner, launch_grid).
bool phase_covers(int64_t t, int64_t nvec, int vec, int64_t cols) {
  return (((nvec + t - 1) / t - 1) * trimmed_threads(t, nvec) + 1) * vec <= cols;
}

// Blocks of `threads` each kept resident by __launch_bounds__ (1024 threads per SM: with 64
// registers each they fill the register file; see plan_for).
int64_t min_resident_blocks(int64_t threads) { return std::max<int64_t>(1, 1024 / threads); }


int estimate_registers(int64_t batch, int vec, double held_per_element, int input_bytes, bool prefetch_in_registers) {
  // Held row values + 32 for addresses and reductions + with the prefetch in registers the next
  // row's loads. (The first pass's loads, all in flight at once, become the held values.)
  // Calibrated with ptxas on W1 f16: 4 vectors of 8 held as pairs, with the prefetch, take 64
  // registers at 128 and 512 threads per row.
  const double elems = static_cast<double>(batch) * vec;
  return static_cast<int>(32 + held_per_element * elems + (prefetch_in_registers ? elems * input_bytes / 4 : 0));
}

// One plan shape to try: named parts of KernelParams that the candidates differ in.
struct Try {
  int64_t tpr = 0;        // threads per row (before trimming to the fewest warps)
  bool prefetch = false;  // the next row in flight while this one reduces
  bool smem = false;      // ... copied into dynamic shared memory, not held in registers
  bool looped = false;    // the row streamed once per pass instead of held
  bool ldg = false;       // weights through the read-only path
  int ring = 0;           // weight ring slots
  int cluster = 1;        // blocks per cluster sharing one row
};

// What the inner plans of one segment are computed from: the row's vectors, the registers a
// held element costs, the weights, and the device's limits.
struct RowModel {
  const ScheduleContext& cx;
  KernelPlan base;      // operands, name, vec, col_vec
  int widest = 1;       // bytes of the widest vector operand
  int vec = 1, aligned_vec = 1, col_vec = 0;
  int weights = 0;      // Col inputs
  size_t reductions = 0;
  int64_t nvec = 0;     // vectors a row overlaps
  double held = 0.5;    // registers per held element (see held_per_element)
  bool recompute = false;
  int64_t row_in_bytes = 0, col_bytes = 0;
  int64_t tpr = 0;      // base threads per row
  std::optional<Choice> pick;
  bool pick_looped = false;

  explicit RowModel(const ScheduleContext& c);

  // Registers per held element where most are held at once: f16/bf16 values two to a register
  // (see narrow_source), each from the pass that makes it to the last that reads it (softmax
  // holds its input until the sum pass, then the f32 exponentials: never both whole).
  double held_per_element(const StagePlan& sp) const {
    double most = 0.5;
    for (int q = 1; q <= sp.max_level; ++q) {
      double live = 0;
      for (size_t i = 0; i < sp.materialized.size(); ++i) {
        const int v = sp.materialized[i];
        const DType t = cx.fusion.value(v).dtype;
        if (sp.stage[v] < q && sp.last_pass[i] >= q)
          live += narrow_source(cx.fusion, v) >= 0 && vec % 2 == 0 ? 0.5 : t == DType::F64 || t == DType::I64 ? 2 : 1;
      }
      most = std::max(most, live);
    }
    return most;
  }
  // Rows per block at t threads per row: blocks of at least 256 threads where rows are short;
  // where rows are few and each takes at least a warp, no more rows per block than give
  // every SM a block.
  int64_t rows_per_block(int64_t t) const {
    const int64_t spread = (cx.facts.R + cx.device.sm_count - 1) / cx.device.sm_count;
    return std::max<int64_t>(1, t >= 32 ? std::min<int64_t>(256 / t, spread) : 256 / t);
  }
  // The next rows of a block in shared memory, for rows (or a cluster block's share) of
  // `row_vectors`; they fit where the blocks that keep 1024 threads resident fit an SM.
  int64_t smem_bytes(int64_t t, int64_t row_vectors) const {
    return rows_per_block(t) * ((row_vectors + t - 1) / t) * t * vec * row_in_bytes;
  }
  bool smem_fits(int64_t t, int64_t row_vectors) const {
    const int64_t bytes = smem_bytes(t, row_vectors), blocks = min_resident_blocks(t * rows_per_block(t));
    return !col_vec && bytes <= cx.device.smem_per_block_optin - kSmemReserve &&
           (bytes + kSmemReserve) * blocks <= cx.device.smem_per_sm;
  }
  // A block must fit the SM's register file, and a thread has at most 255.
  // The limit includes, with a quarter's slack, the cap of min_blocks (1024 threads
  // resident: 64 registers) that ptxas applies through __launch_bounds__. Without it the model
  // let W1 f32 try plans of 96 registers at every size, each compiled, spilled and retried (3
  // retries before the plan); the slack keeps plans the model overestimates, which ptxas fits
  // (softmax bf16 H=768: 68 estimated, 58 used).
  bool fits(int64_t t, bool prefetch_in_registers, int64_t row_vectors) const {
    const DeviceInfo& dev = cx.device;
    const int64_t batch = (row_vectors + t - 1) / t, threads = t * rows_per_block(t);
    const int64_t launch_cap = dev.regs_per_sm / (min_resident_blocks(threads) * threads) / 8 * 8;
    const int64_t limit =
        std::min<int64_t>({int64_t{dev.max_regs_per_thread}, dev.regs_per_block / threads, launch_cap + launch_cap / 4});
    return batch <= kMaxBatch && estimate_registers(batch, vec, held, widest, prefetch_in_registers) <= limit;
  }
  int64_t trimmed(int64_t t) const { return trimmed_threads(t, nvec); }
  bool phase_fits(int64_t t) const { return !col_vec || phase_covers(t, nvec, vec, cx.facts.C); }
  // The weight ring beside the shared-memory prefetch (see write_inner): rows of 1024 threads,
  // one block per SM, aligned. Slots of a vector per thread, as many as the rest of the SM's
  // shared memory holds (less 1 KB for the system, 1 KB for the static reductions), up to two
  // per weight; at least one per weight, so a pass's weights of a batch fit at once. Not where
  // blocks share an SM: their weights hit L1, which the ring's copies bypass (perf-notes).
  int ring_slots(int64_t t) const {
    if (!weights || col_vec || t < 1024) return 0;
    const int64_t avail =
        std::min(cx.device.smem_per_block_optin, cx.device.smem_per_sm - 1024) - 1024 - smem_bytes(t, nvec);
    int64_t k = std::min<int64_t>(2 * weights, avail / (trimmed(t) * vec * col_bytes));
    // As many as divide a row's weight vectors where each weight is read in one pass (write_inner
    // takes that many; the rest would be shared memory taken from L1 for nothing).
    while (k > weights && (weights * ((nvec + t - 1) / t)) % k) --k;
    return k >= weights ? static_cast<int>(k) : 0;
  }
};

RowModel::RowModel(const ScheduleContext& c) : cx(c) {
  const LaunchFacts& facts = cx.facts;
  base = base_plan(cx.fusion, cx.segment, cx.segment_index, cx.shape, facts);
  widest = widest_vector_operand(base, facts);
  vec = aligned_vec = widest_vec(base, facts, false);
  // Rows that do not start vec-aligned (C = 5140 or 4098 f16 elements, a view at an odd offset)
  // may still load whole 16-byte vectors, shifted by each row's phase (see phase_step). Only
  // with at most one weight: weights at the row's phase are loaded again for every row, in
  // narrower pieces (W1, 4 weights, measured slower so: perf-notes).
  for (const OperandPlan& o : base.operands) weights += !o.is_output && o.access == Access::Col;
  // Left out until measured and run by the GPU tests: phase steps of a single element (odd H:
  // single-element weight loads) and rows wider than 16 bits (f32: ld_row's unpaired form).
  // Nor where the row would span several warps, aligned vectors keep it in one and it has
  // more than one reduction: each then goes through shared memory and two barriers.
  const StagePlan stages = plan_stages(cx.fusion, cx.segment, cx.shape, true, false);  // every value held
  reductions = stages.steps.size();
  if (int g = phase_step(base, facts, 16 / widest);
      widest == 2 && g >= 2 && g < 16 / widest && vec < 16 / widest && facts.C >= 16 / widest && weights <= 1) {
    const int pv = 16 / widest;
    const int64_t pn = (facts.C + pv - g + pv - 1) / pv;
    int64_t t = base_threads_per_row(pn, pv);
    while (t < 1024 && !phase_covers(t, pn, pv, facts.C)) t *= 2;
    if (phase_covers(t, pn, pv, facts.C) &&
        (t <= 32 || reductions <= 1 || base_threads_per_row((facts.C + vec - 1) / vec, vec) > 32)) {
      vec = pv;
      col_vec = g;
    }
  }
  // Vectors a row overlaps: up to vec - col_vec more elements when shifted.
  nvec = (facts.C + (col_vec ? vec - col_vec : 0) + vec - 1) / vec;
  held = held_per_element(stages);
  tpr = base_threads_per_row(nvec, vec);
  // Few rows (fewer than SMs): each row over more threads, fewer vectors each, down to one
  // vector per thread, so the few blocks there are finish sooner.
  while (tpr < 512 && facts.R < cx.device.sm_count && 2 * tpr <= nvec) tpr *= 2;
  pick = cx.recorded_choice(facts.C, vec);
  pick_looped = pick && pick->threads_per_row && pick->looped;
  if (pick && pick->threads_per_row) tpr = pick->threads_per_row;
  for (size_t k = 0; k < base.operands.size(); ++k) {
    if (base.operands[k].is_output) continue;
    if (base.operands[k].access == Access::Full) row_in_bytes += dtype_size(facts.operands[k].dtype);
    if (base.operands[k].access == Access::Col)
      col_bytes = std::max<int64_t>(col_bytes, dtype_size(facts.operands[k].dtype));
  }
}

// Rows no block holds, on Hopper: split over a cluster of 2, 4 or 8 blocks, each holding its
// share in registers as a shorter row would, so the row is read from DRAM once and its weights
// once, where the looped row reads both every pass. Each reduction waits on the whole cluster,
// so blocks of at most 512 threads come first: two per SM, one computes while the other waits.
// Rows with more than one reduction (more than one wait) first try the fewest blocks whose
// share fits without the prefetch, 256 or 512 threads, the next row in shared memory (two
// blocks' next rows fitting an SM): the most vectors per thread, the fewest waits per byte.
// Then the prefetch in registers, from the fewest blocks; then 1024-thread blocks in
// clusters of 2 or 4; then without the prefetch: the retries after spills. Not 8 x 1024
// threads (measured slower than looped rows), not for phase-shifted rows (their vectors are
// the block's own), nor rows of several per block. perf-notes has the figures.
std::vector<Try> cluster_tries(const RowModel& m) {
  std::vector<Try> tries;
  if (m.cx.device.cc_major < 9 || m.col_vec) return tries;
  const int64_t nvec = m.nvec;
  const int most = m.cx.device.max_cluster;  // lowered by the executor where a size does not run
  bool found = m.reductions <= 1;  // one wait per row: rms measured slower so
  for (int n : {2, 4, 8})
    for (int64_t t : {256, 512})  // the most vectors per thread that fit: fewer waits per byte
      if (!found && n <= most && m.fits(t, false, (nvec + n - 1) / n) && m.smem_fits(t, (nvec + n - 1) / n)) {
        tries.push_back({.tpr = t, .prefetch = true, .smem = true, .cluster = n});
        found = true;
      }
  for (bool prefetch : {true, false}) {
    for (int n : {2, 4, 8}) {
      if (n > most) break;
      const int64_t share = (nvec + n - 1) / n;
      for (int64_t t = std::max<int64_t>(256, base_threads_per_row(share, m.vec)); t <= 512; t *= 2)
        if (m.fits(t, prefetch, share)) {
          tries.push_back({.tpr = t, .prefetch = prefetch, .cluster = n});
          break;
        }
    }
    for (int n : {2, 4})
      if (n <= most && m.fits(1024, prefetch, (nvec + n - 1) / n)) tries.push_back({.tpr = 1024, .prefetch = prefetch, .cluster = n});
  }
  return tries;
}

// The plans to try, in order; the driver takes the next after spills. At each thread count:
// the prefetch (see KernelParams) in registers, in shared memory, none; then twice the threads
// (up to 1024); then the looped row. Plans the register model says cannot fit are left out.
// Shared memory is not the first choice (slower where registers hold the next row).
// The shared-memory prefetch (aligned rows): the next rows of a block in dynamic shared
// memory, which the blocks that keep 1024 threads resident must share on an SM. Its weights
// load through the read-only path; with plain loads it is the last retry before the looped
// row: the read-only loads let ptxas hoist the next vector's weights, and at the register
// limit that spilled (W1 f16 H=65536), while the looped row re-reads the row and its weights
// every pass.
std::vector<Try> plans_to_try(const RowModel& m) {
  std::vector<Try> tries, plain_weights;
  const int64_t nvec = m.nvec;
  bool prefetch_first = m.pick && m.pick->threads_per_row ? m.pick->prefetch : true;
  for (int64_t t = m.tpr; !m.pick_looped; t = std::min<int64_t>(1024, 2 * t)) {
    if (!m.phase_fits(t)) {
      if (t >= 1024) break;
      continue;
    }
    const bool tried = std::any_of(tries.begin(), tries.end(), [&](const Try& x) {  // as 2t below
      return x.tpr == t && x.prefetch && !x.smem && x.cluster == 1;
    });
    if (prefetch_first && m.fits(t, true, nvec) && !tried) tries.push_back({.tpr = t, .prefetch = true});
    // Twice the threads with the prefetch in registers before this many with the next row in
    // shared memory, where those blocks still share an SM and the row already spans warps. Not
    // from one warp (its reductions would take barriers).
    if (prefetch_first && t >= 64 && 2 * t <= 512 && m.phase_fits(2 * t) && m.fits(2 * t, true, nvec))
      tries.push_back({.tpr = 2 * t, .prefetch = true});
    if (prefetch_first && m.smem_fits(t, nvec) && m.fits(t, false, nvec)) {
      // Before a row of 1024 threads, one block per SM, with the weight ring, where the row has
      // more than one reduction (a block alone on its SM idles through each wait): the row
      // split over a cluster of blocks of 512 threads with the prefetch in registers, two per
      // SM (resident weights, pushed partials). Not rms (one reduction), nor other cluster plans.
      const int k = m.ring_slots(t);
      if (k && m.reductions > 1)
        for (const Try& c : cluster_tries(m))
          if (c.tpr == 512 && c.prefetch && !c.smem) tries.push_back(c);
      if (k) tries.push_back({.tpr = t, .prefetch = true, .smem = true, .ring = k});
      tries.push_back({.tpr = t, .prefetch = true, .smem = true, .ldg = m.weights > 0});
      if (m.weights > 0) plain_weights.push_back({.tpr = t, .prefetch = true, .smem = true});
    }
    if (m.fits(t, false, nvec)) tries.push_back({.tpr = t});
    prefetch_first = true;
    if (t >= 1024) break;
  }
  tries.insert(tries.end(), plain_weights.begin(), plain_weights.end());
  if (tries.empty() && !m.pick_looped) tries = cluster_tries(m);
  tries.push_back({.tpr = m.tpr, .looped = true});
  return tries;
}

// Resident weights (see write_inner): as many as fit beside the blocks an SM keeps, in operand
// order, where the weights otherwise load less than 16 bytes at a time (rows that do not start
// 16-byte aligned) or come from L2 every row (a cluster's block reads its share of the weights,
// which no L1 holds). Not where the weights load 16 bytes at a time and hit L1 (measured
// slower there: perf-notes).
void add_resident_weights(const RowModel& m, KernelPlan& plan) {
  KernelParams& p = plan.params;
  if (!(p.batch > 0 && p.vec > 1 && !p.prefetch_smem && !p.col_vec && (p.cluster > 1 || p.vec * m.widest < 16))) return;
  const DeviceInfo& dev = m.cx.device;
  int64_t bytes = 0;
  int i = 0;
  for (size_t k = 0; k < plan.operands.size(); ++k)
    if (!plan.operands[k].is_output && plan.operands[k].access == Access::Col) {
      const int es = dtype_size(m.cx.facts.operands[k].dtype);
      const int64_t more = int64_t{p.batch} * p.threads_per_row * p.vec * es;
      if (p.vec * es >= 4 &&  // cp.async copies 4, 8 or 16 bytes
          bytes + more <= dev.smem_per_block_optin - kSmemReserve &&
          (bytes + more + kSmemReserve) * p.min_blocks <= dev.smem_per_sm) {
        bytes += more;
        p.resident |= 1 << i;
      }
      ++i;
    }
  p.dyn_smem = static_cast<int>(bytes);
}

KernelPlan plan_for(const RowModel& m, const Try& pick_now) {
  KernelPlan plan = m.base;
  KernelParams& p = plan.params;
  p.vec = m.vec;
  const int64_t share = (m.nvec + pick_now.cluster - 1) / pick_now.cluster;  // of a cluster's block
  const int64_t batch = (share + pick_now.tpr - 1) / pick_now.tpr;
  const int64_t tpr = trimmed_threads(pick_now.tpr, share);
  p.cluster = pick_now.cluster;
  p.threads_per_row = static_cast<int>(tpr);
  p.rows_per_block = static_cast<int>(m.rows_per_block(tpr));
  p.threads = p.threads_per_row * p.rows_per_block;
  p.batch = static_cast<int>(batch);
  p.prefetch = pick_now.prefetch;
  p.prefetch_smem = pick_now.smem;
  p.ldg_weights = pick_now.ldg;
  p.weight_ring = pick_now.ring;
  p.recompute = m.recompute && !pick_now.looped;
  p.dyn_smem = p.prefetch_smem ? static_cast<int>(m.smem_bytes(tpr, share) + p.weight_ring * tpr * m.vec * m.col_bytes) : 0;
  p.col_vec = m.col_vec;
  if (pick_now.looped) {
    // Looped: stream the row once per pass (re-reads hit L2 for rows of a few hundred KB),
    // with vectors that every row start allows.
    p.vec = m.aligned_vec;
    p.col_vec = 0;
    const int64_t nvec = (m.cx.facts.C + p.vec - 1) / p.vec;
    p.batch = 0;
    p.prefetch = p.prefetch_smem = false;
    p.dyn_smem = p.weight_ring = 0;
    p.threads_per_row = m.pick_looped ? m.pick->threads_per_row
                                      : static_cast<int>(std::min<int64_t>(
                                            1024, std::max<int64_t>(32, pow2ceil(nvec / kLoopedVectorsPerThread))));
    p.threads = std::max(p.threads_per_row, 256);
    p.rows_per_block = p.threads / p.threads_per_row;
  }
  // Register cap: keep >= 1024 threads resident (64 registers per thread). Without it ptxas
  // took 69 registers at H = 12288 (512 threads): one block per SM instead of two, 40% slower.
  // A plan that then spills gives way to the next candidate.
  p.min_blocks = static_cast<int>(min_resident_blocks(p.threads));
  add_resident_weights(m, plan);
  // Row tickets (see write_inner): prefetching blocks take their later rows from a counter. Not
  // where one block fills an SM and no weight is read (the order of the rows measured slower),
  // nor with the shared-memory prefetch (its plans hold the longest rows at the register limit,
  // and the ticket's registers made them spill), nor in clusters (their blocks take the same rows).
  p.tickets = p.prefetch && !p.prefetch_smem && p.cluster == 1 && p.threads_per_row > 32 &&
              (p.min_blocks > 1 || m.weights > 0);
  return plan;
}

class InnerScheduler final : public Scheduler {
 public:
  const char* name() const override { return "inner"; }
  std::optional<std::string> cannot_schedule(const ScheduleContext& cx) const override {
    if (cx.segment.category != KernelCategory::Inner) return "no reduction over trailing kernel dims";
    return std::nullopt;
  }
  std::vector<KernelPlan> candidates(const ScheduleContext& cx) const override {
    RowModel m(cx);
    std::vector<Try> tries = plans_to_try(m);
    // Only the looped row or clusters fit: recomputing what can be (plan_stages) may let a
    // block hold the row.
    if (!m.pick_looped && (tries.size() == 1 || tries.front().cluster > 1)) {
      if (const double fewer = m.held_per_element(plan_stages(cx.fusion, cx.segment, cx.shape, true, true));
          fewer < m.held) {
        m.held = fewer;
        m.recompute = true;
        tries = plans_to_try(m);
      }
    }
    std::vector<KernelPlan> out;
    for (const Try& t : tries) out.push_back(plan_for(m, t));
    return out;
  }
};

}  // namespace

const Scheduler& inner_scheduler() {
  static const InnerScheduler s;
  return s;
}

}  // namespace solder
