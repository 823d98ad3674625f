// Inner reductions and persistent normalizations: rows of the collapsed [R, C] domain reduced
// along C, through the inner template (codegen/kernel_inner.cpp). docs/architecture.md walks
// through the plan shapes (held rows, prefetch, weight ring, resident weights, clusters,
// phase-shifted rows, looped rows) and why each exists; the measurements are in perf-notes.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <set>

#include "schedule/inner_registers.h"
#include "schedule/launch_grid.h"
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

// Threads per row for rows of `nvec` vectors of `vec`: the fewest (at least a warp) that give
// each thread at most 32 row elements (4 vectors of 8). Autotune on the H200 (2026-11-23,
// perf-notes) found 4 vectors per thread best or within 2% at every W1, softmax and rms size
// from 2048 to 32768. Where the row spans warps anyway and vectors are 8 bytes or more, also at
// most 8 vectors (64 bytes of row, as 32 16-bit elements): rows of f32 pairs at 9 vectors a
// thread (W1 f32 H=4098: 256 x 9; H=8194: 480 x 9, whose register prefetch spilled, so it ran
// without) measured 9 and 37 % slower than 416 x 5 and 544 x 8 with the prefetch, while f16
// pairs (4 bytes) at 9 vectors measured 8 % faster than at 5 (H100, 2026-11-27, perf-notes).
// Rows one warp holds stay in one warp (their reductions take no barrier), in half of one
// where that leaves fewer slots empty and rows outnumber the warps the device holds
// (`many_rows`): while a warp each fits one wave, a row's latency is the cost, and half a warp
// doing more vectors each measured slower (rows of 333: 2000 rows 7.9 -> 9.0 us, 16384 rows
// 18.5 -> 15.5, H100, perf-notes).
int64_t base_threads_per_row(int64_t nvec, int vec, int elem_bytes, bool many_rows) {
  int64_t tpr = 32;
  if (nvec <= 16) tpr = std::max<int64_t>(1, pow2ceil(nvec));  // very short rows: several per warp
  int64_t most = 32 / vec;  // vectors per thread
  while (tpr < 1024 && (nvec + tpr - 1) / tpr > most) tpr *= 2;
  if (tpr > 32 && vec * elem_bytes >= 8) {
    most = std::min<int64_t>(most, 8);
    while (tpr < 1024 && (nvec + tpr - 1) / tpr > most) tpr *= 2;
  }
  // Past 512 threads, whole warps rather than a power of two: H = 20480 f16 takes 640 threads
  // with 4 vectors each, where 1024 threads x 3 left a third of the last batch empty.
  if (tpr == 1024) tpr = std::min<int64_t>(1024, ((nvec + most - 1) / most + 31) / 32 * 32);
  // Half a warp where its batches leave fewer slots empty (43 phased vectors of 8: 16 x 3
  // slots, 43 of 48 busy, against 32 x 2, 43 of 64).
  if (many_rows && tpr == 32 && nvec > 16 && (nvec + 15) / 16 <= most && (nvec + 15) / 16 * 16 < (nvec + 31) / 32 * 32) tpr = 16;
  return tpr;
}

// Fewest warps that cover the row with t's batch: at H = 5140 (1285 vectors of 4) 256
// threads x 6 left the sixth batch nearly empty (16% of the work for nothing); 224 x 6 fits.
// Not for 1024-thread rows: fewer threads would lift their register cap (see min_blocks).
int64_t trimmed_threads(int64_t t, int64_t nvec) {
  const int64_t b = (nvec + t - 1) / t;
  return t >= 64 && t <= 512 ? std::min<int64_t>(t, ((nvec + b - 1) / b + 31) / 32 * 32) : t;
}

// Few rows (fewer than SMs): each row over more threads, fewer vectors each, down to one
// vector per thread, so the few blocks there are finish sooner. Rows of a wave or two (fewer
// than 256 threads an SM in all) of a norm (`norm`: the row read again from registers)
// likewise while the doubled threads stay under that: a thread's chain of loads and passes,
// not the SMs' bandwidth, sets their time. Not a plain reduction's (measured slower).
int64_t few_rows_threads(int64_t tpr, int64_t nvec, int64_t rows, int sm_count, bool norm) {
  constexpr int64_t kThreadsPerSm = 256;
  while (tpr < 512 && 2 * tpr <= nvec && (rows < sm_count || (norm && rows * 2 * tpr <= sm_count * kThreadsPerSm))) tpr *= 2;
  return tpr;
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

int looped_passes(const ScheduleContext& cx);

// One plan shape to try: named parts of KernelParams that the candidates differ in.
struct Try {
  int64_t tpr = 0;        // threads per row (before trimming to the fewest warps)
  bool prefetch = false;  // the next row in flight while this one reduces
  bool smem = false;      // ... copied into dynamic shared memory, not held in registers
  bool looped = false;    // the row streamed once per pass instead of held
  bool ldg = false;       // weights through the read-only path
  int ring = 0;           // weight ring slots
  int cluster = 1;        // blocks per cluster sharing one row
  int split = 1;          // blocks of the grid sharing one row (exchanging through scratch)
  int resident = 0;       // streamed plain reductions: blocks per SM the register cap keeps (0: 1024 threads)
};

// What the inner plans of one segment are computed from: the row's vectors, the registers a
// held element costs, the weights, and the device's limits.
struct RowModel {
  const ScheduleContext& cx;
  KernelPlan base;      // operands, name, vec, col_vec
  int widest = 1;       // bytes of the widest vector operand
  int vec = 1, aligned_vec = 1, col_vec = 0;
  bool shift = false;   // Full inputs read at their own phase (KernelParams::shift)
  int weights = 0;      // Col inputs
  size_t reductions = 0;
  int exchanges = 0;    // of a row split over blocks: one per reduction, var_mean's merged in one
  int looped_exchanges = 0;  // ... streamed (looped): one per reduction (var_mean: Welford)
  int64_t nvec = 0;     // vectors a row overlaps
  double held = 0.5;    // registers per held element (see held_per_element)
  bool recompute = false;
  int64_t row_in_bytes = 0, col_bytes = 0;
  int64_t tpr = 0;      // base threads per row
  bool many_rows = false;  // more rows than the warps the device holds (see base_threads_per_row)
  std::optional<Choice> pick;
  bool pick_looped = false;
  bool plain = false;   // no element outputs and one streamed pass: holding the row saves nothing

  explicit RowModel(const ScheduleContext& c, bool allow_shift = true);

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
    return !col_vec && !shift && bytes <= cx.device.smem_per_block_optin - kSmemReserve &&
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
    const int64_t launch_cap = dev.register_cap(min_resident_blocks(threads) * threads);
    const int64_t limit =
        std::min<int64_t>({int64_t{dev.max_regs_per_thread}, dev.regs_per_block / threads, launch_cap + launch_cap / 4});
    return batch <= kMaxBatch && registers(batch, prefetch_in_registers) <= limit;
  }
  // The register model at `batch` held vectors: estimate_registers, plus for shift plans the
  // second aligned vector of each pair (both in flight at once; the prefetch holds both for the
  // next row: ptxas, f32 rows of 16384, 512 threads x 8 without the prefetch spilled at 64
  // registers, as did 1024 x 4 with it).
  int64_t registers(int64_t batch, bool prefetch_in_registers) const {
    const int64_t shifted = shift ? batch * vec * widest / 4 * (prefetch_in_registers ? 2 : 1) : 0;
    return estimate_registers(batch, vec, held, widest, prefetch_in_registers) + shifted;
  }
  int64_t trimmed(int64_t t) const { return trimmed_threads(t, nvec); }
  bool phase_fits(int64_t t) const { return !col_vec || phase_covers(t, nvec, vec, cx.facts.C); }
  // The weight ring beside the shared-memory prefetch (see write_inner): rows of 1024 threads,
  // one block per SM, aligned. Slots of a vector per thread, as many as the rest of the SM's
  // shared memory holds (less 1 KB for the system, 1 KB for the static reductions), up to two
  // per weight; at least one per weight, so a pass's weights of a batch fit at once. Not where
  // blocks share an SM: their weights hit L1, which the ring's copies bypass (perf-notes).
  int ring_slots(int64_t t) const {
    if (!weights || col_vec || shift || t < 1024) return 0;
    const int64_t avail =
        std::min(cx.device.smem_per_block_optin, cx.device.smem_per_sm - 1024) - 1024 - smem_bytes(t, nvec);
    int64_t k = std::min<int64_t>(2 * weights, avail / (trimmed(t) * vec * col_bytes));
    // As many as divide a row's weight vectors where each weight is read in one pass (write_inner
    // takes that many; the rest would be shared memory taken from L1 for nothing).
    while (k > weights && (weights * ((nvec + t - 1) / t)) % k) --k;
    return k >= weights ? static_cast<int>(k) : 0;
  }
};

RowModel::RowModel(const ScheduleContext& c, bool allow_shift) : cx(c) {
  const LaunchFacts& facts = cx.facts;
  many_rows = facts.R * 32 > static_cast<int64_t>(cx.device.sm_count) * cx.device.max_threads_per_sm;
  base = base_plan(cx.fusion, cx.segment, cx.segment_index, cx.shape, facts);
  widest = widest_vector_operand(base, facts);
  vec = aligned_vec = widest_vec(base, facts, false);
  // General inputs (reduced dims apart in memory: [0, 2] of [B, M, K]) load as vectors where
  // each vector lies in one unit-stride run (general_segments): one offset per vector instead
  // of a division chain per element. With no other vector operand the vector is theirs: the
  // widest that every one of them allows, else one element per thread, as flat plans (VEC
  // elements per thread read element by element left a warp's reads VEC apart).
  {
    std::vector<int> general;
    for (size_t k = 0; k < base.operands.size(); ++k)
      if (!base.operands[k].is_output && base.operands[k].access == Access::General) general.push_back(static_cast<int>(k));
    if (!general.empty()) {
      const bool others = std::any_of(base.operands.begin(), base.operands.end(), [](const OperandPlan& o) {
        return o.access == Access::Full || o.access == Access::Col;
      });
      if (!others) {
        int es = 1;
        for (int k : general) es = std::max(es, dtype_size(facts.operands[k].dtype));
        vec = 16 / es;
        auto fits = [&](int v) {
          return std::all_of(general.begin(), general.end(), [&](int k) { return general_segments(facts, k, v); });
        };
        while (vec > 1 && !fits(vec)) vec /= 2;
        aligned_vec = vec;
        widest = es;
      }
      for (int k : general) base.operands[k].segments = vec > 1 && general_segments(facts, k, vec);
      // Their offsets (per element, or per vector in runs) come from a division chain: in 32
      // bits where every index and offset fits (a 64-bit division is several times the
      // instructions; seed 8 #130's runs of 768 paid it per vector of 4).
      base.params.index32 = fits_index32(facts);
    }
  }
  // Rows that do not start vec-aligned (C = 5140 or 4098 f16 elements, a view at an odd offset)
  // may still load whole 16-byte vectors, shifted by each row's phase (see phase_step). Only
  // with at most one weight: weights at the row's phase are loaded again for every row, in
  // narrower pieces (W1, 4 weights, measured slower so: perf-notes).
  bool narrow_weight = false;
  for (size_t k = 0; k < base.operands.size(); ++k) {
    const OperandPlan& o = base.operands[k];
    if (o.is_output || o.access != Access::Col) continue;
    ++weights;
    narrow_weight |= dtype_size(facts.operands[k].dtype) < widest;
  }
  // A weight at a phase step of one element (odd H) loads element by element at each row's
  // phase; f32 rows take phased vectors of 4 (ld_row's unpaired form) as 16-bit rows take
  // those of 8. Not a weight narrower than the row's elements (a bool mask): its byte loads
  // measured slower than rows of single elements (perf-notes).
  // Nor where the row would span several warps, aligned vectors keep it in one and it has
  // more than one reduction: each then goes through shared memory and two barriers.
  const StagePlan stages = plan_stages(cx.fusion, cx.segment, cx.shape, true, false);  // every value held
  reductions = stages.steps.size();
  for (const ReductionStep& st : stages.steps) exchanges += !(st.kind == Op::VarMean && !st.var_step && !st.welford);
  looped_exchanges = static_cast<int>(plan_stages(cx.fusion, cx.segment, cx.shape, false, false).steps.size());
  plain = reductions > 0 && looped_passes(cx) == 1 &&
          std::all_of(cx.segment.outputs.begin(), cx.segment.outputs.end(), [&](int v) { return stages.row_level[v] != 0; });
  if (int g = phase_step(base, facts, 16 / widest);
      (widest == 2 || widest == 4) && g >= (narrow_weight ? 2 : 1) && g < 16 / widest && vec < 16 / widest && facts.C >= 16 / widest && weights <= 1) {
    const int pv = 16 / widest;
    const int64_t pn = (facts.C + pv - g + pv - 1) / pv;
    int64_t t = base_threads_per_row(pn, pv, widest, many_rows);
    while (t < 1024 && !phase_covers(t, pn, pv, facts.C)) t *= 2;
    // Rows fewer than SMs run as long as one thread's chain: phased vectors only where they
    // leave a thread fewer vectors than the narrower ones, each row spread as below (rms f16
    // 64 x 333: two vectors of 8 a thread against two elements, measured slower; 100 x 4097:
    // two against nine, faster).
    auto per_thread = [&](int64_t threads, int64_t n) {
      const int64_t spread = few_rows_threads(threads, n, facts.R, cx.device.sm_count, !plain);
      return (n + spread - 1) / spread;
    };
    const int64_t uv = (facts.C + vec - 1) / vec, ut = base_threads_per_row(uv, vec, widest, many_rows);
    const bool longer_chain = facts.R < cx.device.sm_count && per_thread(t, pn) >= per_thread(ut, uv);
    if (phase_covers(t, pn, pv, facts.C) && !longer_chain && (t <= 32 || reductions <= 1 || ut > 32)) {
      vec = pv;
      col_vec = g;
    }
  }
  // Inputs whose rows start off the vector grid (a column slice x = big[:, :H] of a contiguous
  // [B, H + 1]: every row at another phase) beside outputs and weights that allow wider vectors:
  // each Full input read at its own phase (the two aligned vectors around the thread's elements,
  // shifted; see write_inner), the rest with the plan's vectors. Held rows only (the looped form
  // keeps aligned_vec), and only where the inputs' phases are what narrowed the vectors.
  if (allow_shift && !col_vec && vec < 16 / widest) {
    if (const int sv = shifted_inner_vec(base, facts); sv > vec) {
      vec = sv;
      shift = true;
    }
  }
  // Vectors a row overlaps: up to vec - col_vec more elements when shifted.
  nvec = (facts.C + (col_vec ? vec - col_vec : 0) + vec - 1) / vec;
  held = held_per_element(stages);
  tpr = few_rows_threads(base_threads_per_row(nvec, vec, widest, many_rows), nvec, facts.R, cx.device.sm_count, !plain);
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
  if (m.cx.device.cc_major < 9 || m.col_vec || m.shift) return tries;
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
      // A plain reduction's vectors are loads in flight, not values held for a later pass: from
      // 256 threads, up to kMaxBatch vectors each.
      const int64_t first = m.plain ? 256 : std::max<int64_t>(256, base_threads_per_row(share, m.vec, m.widest, m.many_rows));
      for (int64_t t = first; t <= 512; t *= 2)
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
// (up to 1024); then, on Hopper, the row over a cluster (cluster_tries); then the looped row.
// Plans the register model says cannot fit are left out.
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
  // Where no block holds the row, or every held plan spilled at the register limit of 1024
  // threads: the row split over a cluster, before the looped row reads it again every pass.
  // After spills, first the same 1024 threads over two blocks: half the share a thread holds.
  if (!m.pick_looped && (tries.empty() || tries.back().tpr == 1024)) {
    std::vector<Try> split = cluster_tries(m);
    if (!tries.empty())
      std::stable_partition(split.begin(), split.end(),
                            [](const Try& c) { return c.tpr == 1024 && c.cluster == 2 && c.prefetch && !c.smem; });
    tries.insert(tries.end(), split.begin(), split.end());
  }
  tries.push_back({.tpr = m.tpr, .looped = true});
  return tries;
}

// Resident weights (see write_inner): as many as fit beside the blocks an SM keeps, in operand
// order, where the weights otherwise load less than 16 bytes at a time (rows that do not start
// 16-byte aligned) or come from L2 every row (a cluster's block reads its share of the weights,
// which no L1 holds). Not where the weights load 16 bytes at a time and hit L1 (measured
// slower there: perf-notes).
// Only where a block takes several rows (prefetching blocks stride over the rows in one wave:
// launch_grid): a block of one row would copy its weights only to read them once.
void add_resident_weights(const RowModel& m, KernelPlan& plan) {
  KernelParams& p = plan.params;
  const DeviceInfo& dev = m.cx.device;
  const int64_t groups = (m.cx.facts.R + p.rows_per_block - 1) / std::max(1, p.rows_per_block),
                wave = int64_t{dev.sm_count} / p.cluster * std::max(1, p.min_blocks);
  if (!(p.batch > 0 && p.vec > 1 && !p.prefetch_smem && !p.col_vec && p.row_split == 1 &&
        p.prefetch && groups > wave && (p.cluster > 1 || p.vec * m.widest < 16)))
    return;
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
  const int64_t parts = int64_t{pick_now.cluster} * pick_now.split;  // blocks sharing a row
  const int64_t share = (m.nvec + parts - 1) / parts;                   // of one of them
  const int64_t batch = (share + pick_now.tpr - 1) / pick_now.tpr;
  const int64_t tpr = trimmed_threads(pick_now.tpr, share);
  p.cluster = pick_now.cluster;
  p.row_split = pick_now.split;
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
  p.shift = m.shift;
  if (pick_now.looped) {
    // Looped: stream the row once per pass (re-reads hit L2 for rows of a few hundred KB),
    // with vectors that every row start allows.
    p.vec = m.aligned_vec;
    p.col_vec = 0;
    p.shift = false;
    const int64_t nvec = (m.cx.facts.C + p.vec - 1) / p.vec;
    p.batch = 0;
    p.prefetch = p.prefetch_smem = false;
    p.dyn_smem = p.weight_ring = 0;
    p.threads_per_row = pick_now.split > 1 ? static_cast<int>(pick_now.tpr)  // a split row's blocks: the try's
                        : m.pick_looped    ? m.pick->threads_per_row
                                           : static_cast<int>(std::min<int64_t>(
                                              1024, std::max<int64_t>(32, pow2ceil(nvec / kLoopedVectorsPerThread))));
    p.threads = std::max(p.threads_per_row, 256);
    p.rows_per_block = p.threads / p.threads_per_row;
  }
  // Register cap: keep >= 1024 threads resident (64 registers per thread). Without it ptxas
  // took 69 registers at H = 12288 (512 threads): one block per SM instead of two, 40% slower.
  // A plan that then spills gives way to the next candidate.
  p.min_blocks = static_cast<int>(pick_now.resident ? pick_now.resident : min_resident_blocks(p.threads));
  add_resident_weights(m, plan);
  // Row tickets (see write_inner): prefetching blocks take their later rows from a counter. Not
  // where one block fills an SM and no weight is read (the order of the rows measured slower),
  // nor with the shared-memory prefetch (its plans hold the longest rows at the register limit,
  // and the ticket's registers made them spill), nor in clusters (their blocks take the same rows).
  p.tickets = p.prefetch && !p.prefetch_smem && p.cluster == 1 && p.threads_per_row > 32 &&
              (p.min_blocks > 1 || m.weights > 0);
  return plan;
}

// Passes over the row of the looped form: those that feed a reduction or store element outputs.
int looped_passes(const ScheduleContext& cx) {
  const StagePlan sp = plan_stages(cx.fusion, cx.segment, cx.shape, false, false);
  std::set<int> passes;
  for (const ReductionStep& st : sp.steps) passes.insert(st.level - 1);
  for (int v : cx.segment.outputs)
    if (!sp.row_level[v]) passes.insert(sp.stage[v]);
  return std::max<int>(1, static_cast<int>(passes.size()));
}

struct SplitPlan {
  std::optional<RowModel> model;  // the row model of the split (aligned vectors)
  std::vector<Try> tries;         // best first, then smaller shares (retries after spills)
  std::string why;
};

// One way to split the rows, with the model's cost (bytes on the busiest SM) and the vectors a
// thread holds (0: streamed).
struct SplitOption {
  Try t;
  double cost = 0;
  int64_t batch = 0;
};

// What the model counts for one row: the bytes it moves (held: once; streamed: inputs once per
// pass, re-read passes 0.4 of a DRAM read where the inputs fit half the L2, as outer_norm's
// model), and what an SM's share of DRAM bandwidth moves in a microsecond.
struct RowTraffic {
  double held = 0, streamed = 0, sm_bytes_per_us = 0;
  explicit RowTraffic(const RowModel& m) {
    const ScheduleContext& cx = m.cx;
    double in = 0, out = 0;
    for (size_t k = 0; k < m.base.operands.size(); ++k) {
      const OperandPlan& o = m.base.operands[k];
      const double b = static_cast<double>(dtype_size(cx.facts.operands[k].dtype) * cx.facts.C);
      // General operands too (reduced dims apart in memory): before, their rows counted 0 bytes
      // and were never split (seed 9 #128: 32 rows of 2 MB on 32 blocks).
      if (o.access == Access::Full || o.access == Access::General) (o.is_output ? out : in) += b;
      if (o.access == Access::Col && !o.is_output) in += b;
    }
    held = in + out;
    const double reread = in * static_cast<double>(cx.facts.R) <= cx.device.l2_bytes / 2 ? 0.4 : 1.0;
    streamed = in * (1 + reread * (looped_passes(cx) - 1)) + out;
    sm_bytes_per_us = cx.device.dram_peak_gbs() * 1e3 / cx.device.sm_count;
  }
};

// The busiest SM's bytes with R rows over `parts` blocks each: blocks spread evenly over the
// SMs, each moving its share of `bytes` and waiting `waits` microseconds.
double split_cost(const ScheduleContext& cx, int64_t parts, double bytes, double waits, const RowTraffic& tr) {
  const int64_t sms = cx.device.sm_count;
  return static_cast<double>((cx.facts.R * parts + sms - 1) / sms) * (bytes / static_cast<double>(parts) + waits * tr.sm_bytes_per_us);
}

// Held shares: S = 2 .. SMs blocks of 1024, 512 or 256 threads whose share fits the register
// model without the prefetch; a cluster where S is 2, 4 or 8 on Hopper (its exchange a quarter of
// the grid's).
std::vector<SplitOption> held_options(const RowModel& m, const RowTraffic& tr) {
  const DeviceInfo& dev = m.cx.device;
  std::vector<SplitOption> out;
  for (int64_t parts = 2; parts <= dev.sm_count; ++parts) {
    const int64_t share = (m.nvec + parts - 1) / parts;
    for (int64_t t : {1024, 512, 256}) {  // each thread with a vector at least
      if (t > share || !m.fits(t, false, share)) continue;
      // Every batch but the last inside the row at the threads plan_for trims to (launch_grid).
      const int64_t batch = (share + t - 1) / t;
      if ((batch - 1) * trimmed_threads(t, share) * parts >= m.nvec) continue;
      const bool cluster = dev.cc_major >= 9 && parts <= 8 && (parts & (parts - 1)) == 0 && parts <= dev.max_cluster;
      out.push_back({.t = {.tpr = t, .cluster = cluster ? static_cast<int>(parts) : 1, .split = cluster ? 1 : static_cast<int>(parts)},
                     .cost = split_cost(m.cx, parts, tr.held, m.exchanges * (cluster ? 0.25 : 1.0), tr),
                     .batch = batch});
    }
  }
  return out;
}

// Streamed shares (the looped row's form over the grid: var_mean one Welford pass): S = 2 .. SMs
// blocks of 1024 or 512 threads, a vector each at least.
std::vector<SplitOption> looped_options(const RowModel& m, const RowTraffic& tr) {
  std::vector<SplitOption> out;
  const int64_t nvec = (m.cx.facts.C + m.aligned_vec - 1) / m.aligned_vec;
  for (int64_t parts = 2; parts <= m.cx.device.sm_count; ++parts)
    for (int64_t t : {1024, 512})
      if (t * parts <= nvec)
        out.push_back({.t = {.tpr = t, .looped = true, .split = static_cast<int>(parts)},
                       .cost = split_cost(m.cx, parts, tr.streamed, m.looped_exchanges, tr)});
  return out;
}

// Plain reductions (RowModel::plain: no element outputs, one streamed pass): holding a share
// saves no bytes, and a held share of 1024 threads at ~64 registers kept one block per SM with
// one batch of loads in flight (seed 9 #038: 1056 blocks of 1024 threads, a batch of 4 each, 8
// waves). Streamed shares instead: blocks of 512 threads looping over their share, the register
// cap keeping 2048 threads per SM (retry: 1024), S blocks per row such that the whole grid is
// resident at once (R * S <= 4 blocks per SM: the exchange waits for the blocks' skew, not for
// a later wave) and, where the rows allow, every SM has two blocks or more (R * S >= 2 SMs).
// Cost as split_cost with one wait.
std::vector<SplitOption> plain_options(const RowModel& m, const RowTraffic& tr) {
  std::vector<SplitOption> out;
  const int64_t sms = m.cx.device.sm_count, R = m.cx.facts.R, t = 512, resident = 4;
  const int64_t nvec = (m.cx.facts.C + m.aligned_vec - 1) / m.aligned_vec;
  bool filled = false;
  for (int64_t parts = 2; parts <= sms && R * parts <= resident * sms; ++parts)
    if (t * parts <= nvec) {
      filled |= R * parts >= 2 * sms;
      out.push_back({.t = {.tpr = t, .looped = true, .split = static_cast<int>(parts), .resident = static_cast<int>(resident)},
                     .cost = static_cast<double>((R * parts + sms - 1) / sms) * tr.streamed / static_cast<double>(parts) +
                             m.looped_exchanges * tr.sm_bytes_per_us});
    }
  if (filled) std::erase_if(out, [&](const SplitOption& o) { return R * o.t.split < 2 * sms; });
  return out;
}

std::string megabytes(double b) {
  char s[32];
  std::snprintf(s, sizeof s, b >= 1e6 ? "%.1f MB" : "%.0f KB", b >= 1e6 ? b / 1e6 : b / 1e3);
  return s;
}

// Few long rows (fewer than SMs): each row split over S blocks so that the rows fill the device,
// either over a thread-block cluster (S = 2, 4, 8 on Hopper: partials through distributed shared
// memory) or over blocks of the grid (row_split: partials through scratch in L2, any S up to a
// block per SM, so that a row's blocks can always run at once). Each block holds its share in
// registers, as a shorter row's block would, without the prefetch (a block takes one row);
// where no share fits, it streams its share once per pass (the looped form over the grid).
// The model: the busiest SM's time in bytes of DRAM traffic (split_cost). Against one block (or
// the held cluster) per row, a split must save a fifth and what an SM moves in two
// microseconds. Where rows are short the exchanges dominate and nothing is split; where rows
// fill the SMs nothing changes. `why` says what the model chose, or why not.
SplitPlan plan_split(const RowModel& base, const Try& unsplit) {
  SplitPlan out;
  const ScheduleContext& cx = base.cx;
  const int64_t R = cx.facts.R, sms = cx.device.sm_count;
  if (R >= sms || R < 1 || base.pick || base.reductions == 0) return out;
  // Aligned vectors (a block's vectors are not the row's first), every value held where a share
  // fits so (recomputed values only where none does: see candidates).
  RowModel m = base;
  m.vec = m.aligned_vec;
  m.col_vec = 0;
  m.shift = false;
  m.nvec = (cx.facts.C + m.vec - 1) / m.vec;
  m.recompute = false;
  m.held = m.held_per_element(plan_stages(cx.fusion, cx.segment, cx.shape, true, false));
  const RowTraffic tr(m);
  // The plan without a split: one block (or the held cluster) per row; a looped row streams.
  const int64_t now_parts = unsplit.looped ? 1 : unsplit.cluster;
  const double now = split_cost(cx, now_parts, unsplit.looped ? tr.streamed : tr.held,
                                now_parts > 1 ? m.exchanges * 0.25 : 0, tr);
  auto cheapest_first = [](std::vector<SplitOption> v) {
    std::stable_sort(v.begin(), v.end(), [](const SplitOption& a, const SplitOption& b) { return a.cost < b.cost; });
    return v;
  };
  std::vector<SplitOption> held = cheapest_first(held_options(m, tr));
  if (held.empty())
    if (const double fewer = m.held_per_element(plan_stages(cx.fusion, cx.segment, cx.shape, true, true)); fewer < m.held) {
      m.held = fewer;
      m.recompute = true;
      held = cheapest_first(held_options(m, tr));
    }
  // Plain reductions stream their shares (plain_options) where any fits; held shares only where none.
  const std::vector<SplitOption> plain = m.plain ? cheapest_first(plain_options(m, tr)) : std::vector<SplitOption>();
  if (!plain.empty()) held.clear();
  const std::vector<SplitOption> looped = plain.empty() ? cheapest_first(looped_options(m, tr)) : plain;
  const std::string rows = std::to_string(R) + " rows of " + megabytes(tr.held) + " on " + std::to_string(sms) + " SMs: ";
  if (held.empty() && looped.empty()) {
    out.why = rows + "not split (shorter than a block's threads)";
    return out;
  }
  // Held shares where any fits (the row read once), else streamed ones.
  const SplitOption& best = held.empty() ? looped.front() : held.front();
  const int64_t parts = int64_t{best.t.cluster} * best.t.split;
  const std::string busiest = "busiest SM " + megabytes(best.cost) + " against " + megabytes(now) + " as " +
                              (now_parts > 1 ? "a cluster of " + std::to_string(now_parts) : std::string("one block")) +
                              " per row";
  // A fifth saved, and at least what an SM moves in two microseconds: the byte model leaves out
  // the fixed costs (a block's start, the tail of the exchange's wait) that eat small savings.
  // Plain reductions' streamed shares take ties from a held row or cluster: held blocks read
  // their share in one shot, wave after wave, with nothing in flight between them, where streamed
  // shares keep every resident block's loads going (same run: seed 10 #133 47.8 -> 40.1 us, seed 8
  // #132 11.9 -> 11.4; but seed 8 #003, a cluster of 512-thread blocks two per SM, 15.1 -> 16.5:
  // perf-notes 2026-11-27).
  const bool streams = !plain.empty() && !unsplit.looped;
  if (streams ? best.cost > now : best.cost > 0.8 * now || now - best.cost < 2 * tr.sm_bytes_per_us) {
    out.why = rows + "not split (best: " + std::to_string(parts) + " blocks per row, " + busiest + ")";
    return out;
  }
  out.why = rows + "each split over " + std::to_string(parts) + " blocks of " + std::to_string(best.t.tpr) + " threads (" +
            (best.t.cluster > 1 ? "a cluster" : "the grid, partials through scratch") +
            (best.t.resident ? ", each streaming its share: no element outputs, nothing held" : best.t.looped ? ", each streaming its share per pass" : "") + "), " + std::to_string(R * parts) + " blocks; " +
            busiest;
  // Spill retries (the register model is an estimate): the cheapest holding at most half the
  // vectors per thread of the one before, twice; then the cheapest streamed split.
  out.tries.push_back(best.t);
  for (int64_t batch = best.batch / 2; batch > 0 && out.tries.size() < 3; batch /= 2)
    for (const SplitOption& o : held)
      if (o.batch <= batch) {
        out.tries.push_back(o.t);
        batch = o.batch;
        break;
      }
  if (best.batch > 0 && !looped.empty()) out.tries.push_back(looped.front().t);
  if (best.t.resident > 2) {  // a streamed plain share that spilled under the 32-register cap: 64
    Try t = best.t;
    t.resident = 2;
    out.tries.push_back(t);
  }
  out.model.emplace(m);
  return out;
}

// Staged operands (Access::Staged): an input read, or an output written, element by element
// (General) whose innermost row dim is unit-stride and whose columns are one linear index (the
// transposed x of a norm whose residual and output are rows: its normalized axis is strided;
// or a norm's contiguous output over a transposed x). In place, each warp's access touches a
// sector per element; staged, a block moves its RPB rows' tile a column's run of rows at a time
// (runs of RPB elements: whole sectors where RPB x es >= 32 bytes) between shared memory and
// global memory, and its rows read or write it there. Chosen from the operands' strides at
// these facts, not from sizes.
bool linear_dims(const LaunchFacts& facts, int k, int lo, int hi, int64_t* step) {
  const std::vector<int64_t>& st = facts.operands[k].strides;
  int64_t s = 0, span = 0;  // the innermost varying dim's stride, and the extent walked so far
  for (int d = hi - 1; d >= lo; --d) {
    if (facts.dims[d] <= 1) continue;
    if (span == 0) s = st[d], span = st[d] * facts.dims[d];
    else if (st[d] != span) return false;
    else span *= facts.dims[d];
  }
  *step = s;
  return true;
}
// The stride of the innermost of dims [lo, hi) with more than one index (0 where none has).
int64_t innermost_stride(const LaunchFacts& facts, int k, int lo, int hi) {
  for (int d = hi - 1; d >= lo; --d)
    if (facts.dims[d] > 1) return facts.operands[k].strides[d];
  return 0;
}
std::vector<int> stageable_operands(const ScheduleContext& cx, const KernelPlan& base) {
  std::vector<int> out;
  const int split = cx.shape.split, rank = static_cast<int>(cx.facts.dims.size());
  for (size_t k = 0; k < base.operands.size(); ++k) {
    int64_t cs = 0;
    const int kk = static_cast<int>(k);
    if (base.operands[k].access == Access::General && innermost_stride(cx.facts, kk, 0, split) == 1 &&
        linear_dims(cx.facts, kk, split, rank, &cs) && cs != 0 &&
        cx.facts.operands[k].address % dtype_size(cx.facts.operands[k].dtype) == 0)
      out.push_back(kk);
  }
  return out;
}

// The plan with its stageable operands staged, where it holds its rows in one block (no cluster,
// split or phased rows; a shared-memory prefetch becomes the register prefetch): rows per block
// raised until a column's run of rows fills a 32-byte sector (at most 512 threads, so two
// blocks share an SM; up to 1024 for half a sector), resident weights dropped (the tiles take
// the dynamic shared memory), the register cap's blocks lowered to what the tiles let share an
// SM. None where a run would stay under 16 bytes.
std::optional<KernelPlan> staged_plan(const ScheduleContext& cx, const KernelPlan& plan, std::vector<int> operands) {
  const KernelParams& was = plan.params;
  if (was.batch == 0 || was.cluster > 1 || was.row_split > 1 || was.col_vec || was.shift || was.weight_ring) return std::nullopt;
  // An input read in place gets its sectors from L1 while the block's rows walk them: staged only
  // where the sectors of the resident blocks' rows (a column's run of RPB rows a sector or more)
  // outgrow a quarter of an SM's L1 (long rows; short ones, seed 9 #114's 64 columns, lose to
  // the tiles' barriers). Outputs always: stores do not gather in L1.
  const int64_t resident = was.min_blocks > 0 ? was.min_blocks : min_resident_blocks(was.threads);
  std::erase_if(operands, [&](int k) {
    const int64_t run = int64_t{was.rows_per_block} * dtype_size(cx.facts.operands[k].dtype);
    return !plan.operands[k].is_output && resident * cx.facts.C * std::max<int64_t>(1, (run + 31) / 32) * 32 <= cx.device.smem_per_sm / 4;
  });
  if (operands.empty()) return std::nullopt;
  int es = 1;
  for (int k : operands) es = std::max(es, dtype_size(cx.facts.operands[k].dtype));
  KernelPlan out = plan;
  KernelParams& p = out.params;
  int64_t rpb = p.rows_per_block;
  while ((rpb * es < 32 && 2 * rpb * p.threads_per_row <= 512) || (rpb * es < 16 && 2 * rpb * p.threads_per_row <= 1024))
    rpb *= 2;
  if (rpb * es < 16) return std::nullopt;
  p.rows_per_block = static_cast<int>(rpb);
  p.threads = p.threads_per_row * p.rows_per_block;
  p.resident = 0;
  p.prefetch_smem = p.ldg_weights = false;  // the tiles take the shared memory; the next row's inputs come into registers
  int64_t bytes = 0;
  for (int k : operands) {
    out.operands[k].access = Access::Staged;
    bytes += staged_tile_bytes(p, dtype_size(cx.facts.operands[k].dtype));
  }
  if (bytes + kSmemReserve > cx.device.smem_per_block_optin) return std::nullopt;
  p.dyn_smem = static_cast<int>(bytes);
  p.min_blocks = static_cast<int>(std::clamp<int64_t>(cx.device.smem_per_sm / (bytes + kSmemReserve), 1,
                                                      min_resident_blocks(p.threads)));
  p.tickets = p.tickets && p.threads_per_row > 32;
  std::string names;
  for (int k : operands) names += (names.empty() ? "" : ", ") + cx.fusion.value(out.operands[k].value).name;
  out.why = "staged: " + names + " (unit-stride along the rows) through shared memory, tiles of " + std::to_string(rpb) +
            " rows" + (plan.why.empty() ? std::string() : "; " + plan.why);
  return out;
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
    // Only the looped row or clusters fit: recomputing what can be (plan_stages) may let a
    // block hold the row.
    auto tries_of = [&](RowModel& rm) {
      std::vector<Try> t = plans_to_try(rm);
      if (!rm.pick_looped && (t.size() == 1 || t.front().cluster > 1)) {
        if (const double fewer = rm.held_per_element(plan_stages(cx.fusion, cx.segment, cx.shape, true, true));
            fewer < rm.held) {
          rm.held = fewer;
          rm.recompute = true;
          t = plans_to_try(rm);
        }
      }
      return t;
    };
    std::vector<Try> tries = tries_of(m);
    // Shift plans that all spill (two shifted f32 inputs of 12288 at 1024 threads) give way to
    // the held plans of the vectors every row start allows before the looped row.
    std::optional<RowModel> unshifted;
    std::vector<Try> unshifted_tries;
    if (m.shift) {
      unshifted.emplace(cx, false);
      for (const Try& t : tries_of(*unshifted))
        if (!t.looped) unshifted_tries.push_back(t);
    }
    std::vector<KernelPlan> out;
    const SplitPlan split = plan_split(m, tries.front());
    if (split.model)
      for (const Try& t : split.tries) out.push_back(plan_for(*split.model, t));
    for (const Try& t : tries) {
      // The looped row is the last resort after spills; where the first plan was a cluster the
      // split model left alone, a row taken by one block may still want spreading (a group
      // norm of 32 long rows whose cluster plan spilled ran on 32 blocks).
      if (t.looped && !split.model && tries.front().cluster > 1) {
        const SplitPlan fallback = plan_split(m, t);
        if (fallback.model)
          for (const Try& u : fallback.tries) {
            out.push_back(plan_for(*fallback.model, u));
            out.back().why = fallback.why;
          }
      }
      if (t.looped)
        for (const Try& u : unshifted_tries) {
          out.push_back(plan_for(*unshifted, u));
          out.back().why = split.why;
        }
      out.push_back(plan_for(m, t));
      if (out.back().why.empty()) out.back().why = split.why;
    }
    for (KernelPlan& p : out)
      if (p.why.empty()) p.why = split.why;
    // Staged forms of the plans first, in their order; the plans reading in place after them
    // (the retries after spills).
    const std::vector<int> stage = stageable_operands(cx, m.base);
    std::vector<KernelPlan> staged;
    for (const KernelPlan& p : out)
      if (auto sp = staged_plan(cx, p, stage)) staged.push_back(std::move(*sp));
    out.insert(out.begin(), staged.begin(), staged.end());
    return out;
  }
};

}  // namespace

int inner_register_estimate(const ScheduleContext& cx, const KernelParams& p) {
  RowModel m(cx, p.shift);
  m.vec = p.vec;  // held_per_element pairs 16-bit values only in even vectors
  m.shift = p.shift;
  m.held = m.held_per_element(plan_stages(cx.fusion, cx.segment, cx.shape, true, p.recompute));
  return static_cast<int>(m.registers(p.batch, p.prefetch && !p.prefetch_smem));
}

const Scheduler& inner_scheduler() {
  static const InnerScheduler s;
  return s;
}

}  // namespace solder
