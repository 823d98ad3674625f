#include "schedule/scheduler.h"

#include <algorithm>
#include <numeric>

#include "schedule/stages.h"
#include "schedule/tuning.h"
#include "solder/error.h"

namespace solder {

namespace {

int64_t pow2ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// Classifies how an operand is addressed over [R, C]; sets `ld` for Row/Full.
Access classify(const std::vector<int64_t>& dims, const std::vector<int64_t>& st, int split, int64_t& ld) {
  const int rank = static_cast<int>(dims.size());
  auto part = [&](int lo, int hi, bool need_unit, int64_t& stride_out) -> int {  // 0 none, 1 linear, 2 general
    std::vector<int> rel;
    for (int d = lo; d < hi; ++d)
      if (dims[d] > 1) rel.push_back(d);
    bool any = false, all = true;
    for (int d : rel) (st[d] != 0 ? any : all) = st[d] != 0 ? true : false;
    if (!any) return 0;
    if (!all) return 2;
    for (size_t i = 0; i + 1 < rel.size(); ++i)
      if (st[rel[i]] != st[rel[i + 1]] * dims[rel[i + 1]]) return 2;
    stride_out = st[rel.back()];
    if (need_unit && stride_out != 1) return 2;
    return 1;
  };
  int64_t row_ld = 0, col_st = 0;
  int r = part(0, split, false, row_ld);
  int c = part(split, rank, true, col_st);
  ld = row_ld;
  if (r == 2 || c == 2) return Access::General;
  if (r == 0 && c == 0) return Access::Scalar;
  if (r == 1 && c == 0) return Access::Row;
  if (r == 0 && c == 1) return Access::Col;
  return Access::Full;
}

std::string kernel_name(const Fusion& f, const Segment& s, int index, bool has_elem_outputs) {
  std::string cat = s.category == KernelCategory::Pointwise ? "pw"
                    : s.category == KernelCategory::Full    ? "red"
                    : has_elem_outputs                      ? "norm"
                                                            : "red";
  std::string name = "solder_" + cat;
  std::vector<std::string> seen;
  for (int ni : s.nodes) {
    std::string op = op_name(f.nodes()[ni].op);
    if (std::find(seen.begin(), seen.end(), op) != seen.end()) continue;
    seen.push_back(op);
    if (seen.size() <= 4) name += "_" + op;
  }
  return name + "_" + std::to_string(index);
}

}  // namespace

LaunchFacts make_facts(const Fusion& f, const Segment& s, const KernelShape& ks, const std::vector<int64_t>& domain,
                       const std::vector<std::vector<int64_t>>& shapes, const std::vector<std::vector<int64_t>>& strides,
                       const std::vector<uint64_t>& addresses) {
  LaunchFacts lf;
  const int rank = static_cast<int>(ks.dim_order.size());
  for (int pos = 0; pos < rank; ++pos) lf.dims.push_back(domain[ks.dim_order[pos]]);
  for (int pos = 0; pos < rank; ++pos) (pos < ks.split ? lf.R : lf.C) *= lf.dims[pos];
  for (size_t k = 0; k < ks.operands.size(); ++k) {
    int v = ks.operands[k];
    const Value& val = f.value(v);
    OperandFacts of{val.dtype, std::vector<int64_t>(rank, 0), addresses[k]};
    // Map the operand's dims onto domain dims (original order), then to kernel order.
    std::vector<int> dom_of(shapes[k].size(), -1);
    const Node* red = val.producer >= 0 ? &f.nodes()[val.producer] : nullptr;
    if (red && op_info(red->op).kind == OpKind::Reduction && !red->attrs.keepdim &&
        std::find(s.nodes.begin(), s.nodes.end(), val.producer) != s.nodes.end()) {
      size_t j = 0;
      for (int d = 0; d < rank && j < dom_of.size(); ++d)
        if (!std::binary_search(red->attrs.axes.begin(), red->attrs.axes.end(), d)) dom_of[j++] = d;
    } else {
      int off = rank - static_cast<int>(shapes[k].size());
      for (size_t i = 0; i < shapes[k].size(); ++i) dom_of[i] = off + static_cast<int>(i);
    }
    for (size_t i = 0; i < shapes[k].size(); ++i) {
      if (dom_of[i] < 0 || shapes[k][i] == 1) continue;
      int pos = static_cast<int>(std::find(ks.dim_order.begin(), ks.dim_order.end(), dom_of[i]) - ks.dim_order.begin());
      of.strides[pos] = strides[k][i];
    }
    lf.operands.push_back(std::move(of));
  }
  lf.ld.assign(ks.operands.size(), 0);
  return lf;
}

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
    const int ph = static_cast<int>(facts.operands[k].address / es % v), l = static_cast<int>(facts.ld[k] % v);
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

// Whether persistent kernels prefetch unless autotune recorded otherwise (measured: perf-notes).
constexpr bool kPrefetchByDefault = true;

// Blocks of `threads` each kept resident by __launch_bounds__ (1024 threads per SM: with 64
// registers each they fill the register file; see schedule_kernel).
int64_t min_resident_blocks(int64_t threads) { return std::max<int64_t>(1, 1024 / threads); }

int estimate_registers(int64_t batch, int vec, double held_per_element, int input_bytes, bool prefetch_in_registers) {
  // Held row values + 32 for addresses and reductions + with the prefetch in registers the next
  // row's loads. (The first pass's loads, all in flight at once, become the held values.)
  // Calibrated with ptxas on W1 f16: 4 vectors of 8 held as pairs, with the prefetch, take 64
  // registers at 128 and 512 threads per row.
  const double elems = static_cast<double>(batch) * vec;
  return static_cast<int>(32 + held_per_element * elems + (prefetch_in_registers ? elems * input_bytes / 4 : 0));
}

bool schedule_kernel(const Fusion& f, const Segment& s, int index, const KernelShape& ks, LaunchFacts& facts,
                     const DeviceInfo& dev, int attempt, KernelPlan& plan) {
  plan = KernelPlan{};
  plan.shape = ks;
  bool has_elem_outputs = false;
  // Access class per operand.
  int widest = 1;
  for (size_t k = 0; k < ks.operands.size(); ++k) {
    OperandPlan op;
    op.value = ks.operands[k];
    op.is_output = static_cast<int>(k) >= ks.num_inputs;
    op.access = classify(facts.dims, facts.operands[k].strides, ks.split, facts.ld[k]);
    if (op.access == Access::Full || op.access == Access::Col) {
      widest = std::max(widest, dtype_size(facts.operands[k].dtype));
      if (op.is_output) has_elem_outputs = true;
    }
    plan.operands.push_back(op);
  }
  plan.name = kernel_name(f, s, index, has_elem_outputs);

  // vec: the widest vector (16 bytes of the widest operand at most) that every vectorized
  // operand's address, row stride and the row length allow. Pointwise kernels over a single
  // row may end in a masked tail; others need C % vec == 0 so every row starts aligned.
  int vec = 16 / widest;
  const bool tail_ok = ks.category != KernelCategory::Inner && facts.R == 1;
  for (; vec > 1; vec /= 2) {
    bool ok = tail_ok || facts.C % vec == 0;
    for (size_t k = 0; k < plan.operands.size() && ok; ++k) {
      Access a = plan.operands[k].access;
      if (a != Access::Full && a != Access::Col) continue;
      uint64_t bytes = static_cast<uint64_t>(vec) * dtype_size(facts.operands[k].dtype);
      if (facts.operands[k].address % bytes) ok = false;
      if (a == Access::Full && facts.ld[k] % vec) ok = false;
    }
    if (ok) break;
  }
  KernelParams& p = plan.params;
  p.vec = vec;
  const int aligned_vec = vec;

  if (ks.category != KernelCategory::Inner) {
    // 256 threads: 8 resident blocks fill an SM's 2048 threads. unroll: large single-row
    // problems give each thread 4 vectors per pass (more bytes in flight, fewer blocks).
    // (Unroll 1 at 2^21 bf16 elements measured slower: 14.2 against 10.7 us, H200.)
    if (attempt > 0) return false;
    p.threads = 256;
    p.unroll = (facts.R == 1 && facts.C >= (1 << 20)) ? 4 : 1;
    std::optional<Choice> pick = forced_choice();
    if (!pick) pick = TuneDb::global().find(tuning_key(f.hash(), index, ks.category, facts.C, vec));
    if (pick && pick->threads) {
      p.threads = pick->threads;
      p.unroll = pick->unroll;
    }
    return true;
  }

  // Inner reduction / persistent normalization. Rows that do not start vec-aligned (C = 5140
  // or 4098 f16 elements, a view at an odd offset) may still load whole 16-byte vectors, shifted
  // by each row's phase (see phase_step). Only with at most one weight: weights at the row's
  // phase are loaded again for every row, in narrower pieces. Measured (H200, B=8192, % of a
  // copy, vectors of 4 or 2 -> phase-shifted 8): rms bf16 4098 80 -> 92, 5140 90 -> 93, 770 ->
  // 94; softmax 4098 69 -> 74; but W1 (4 weights) 5140 86 -> 72, 4100 88 -> 65.
  int col_vec = 0, weights = 0;
  for (const OperandPlan& o : plan.operands) weights += !o.is_output && o.access == Access::Col;
  // Left out until measured and run by the GPU tests: phase steps of a single element (odd H:
  // single-element weight loads) and rows wider than 16 bits (f32: ld_row's unpaired form).
  // Nor where the row would span several warps, aligned vectors keep it in one and it has
  // more than one reduction: each then goes through shared memory and two barriers (H100,
  // B=8192, % of a copy, phased 64 threads -> aligned 32: softmax bf16 770 79 -> 96, 772 80 ->
  // 97; but rms bf16, one reduction, 770 109 -> 94).
  const StagePlan stages = plan_stages(f, s, ks, true, false);  // every value held
  const size_t reductions = stages.steps.size();
  if (int g = phase_step(plan, facts, 16 / widest);
      widest == 2 && g >= 2 && g < 16 / widest && vec < 16 / widest && facts.C >= 16 / widest && weights <= 1) {
    const int pv = 16 / widest;
    const int64_t pn = (facts.C + pv - g + pv - 1) / pv;
    int64_t t = base_threads_per_row(pn, pv);
    while (t < 1024 && !phase_covers(t, pn, pv, facts.C)) t *= 2;
    if (phase_covers(t, pn, pv, facts.C) &&
        (t <= 32 || reductions <= 1 || base_threads_per_row((facts.C + vec - 1) / vec, vec) > 32)) {
      p.vec = vec = pv;
      col_vec = g;
    }
  }
  // Vectors a row overlaps: up to vec - col_vec more elements when shifted.
  int64_t nvec = (facts.C + (col_vec ? vec - col_vec : 0) + vec - 1) / vec;
  // Registers per held element where most are held at once: f16/bf16 values two to a register
  // (see narrow_source), each from the pass that makes it to the last that reads it (softmax
  // holds its input until the sum pass, then the f32 exponentials: never both whole).
  auto held_per_element = [&](const StagePlan& sp) {
    double held = 0.5;
    for (int q = 1; q <= sp.max_level; ++q) {
      double live = 0;
      for (size_t i = 0; i < sp.materialized.size(); ++i) {
        const int v = sp.materialized[i];
        const DType t = f.value(v).dtype;
        if (sp.stage[v] < q && sp.last_pass[i] >= q)
          live += narrow_source(f, v) >= 0 && vec % 2 == 0 ? 0.5 : t == DType::F64 || t == DType::I64 ? 2 : 1;
      }
      held = std::max(held, live);
    }
    return held;
  };
  double held = held_per_element(stages);
  int64_t tpr = base_threads_per_row(nvec, vec);
  std::optional<Choice> pick = forced_choice();
  if (!pick) pick = TuneDb::global().find(tuning_key(f.hash(), index, ks.category, facts.C, vec));
  const bool pick_looped = pick && pick->threads_per_row && pick->looped;
  if (pick && pick->threads_per_row) tpr = pick->threads_per_row;
  // The plans to try, in order; prepare_kernel takes the next (attempt + 1) after spills. At
  // each thread count: the prefetch (see KernelParams) in registers, in shared memory, none;
  // then twice the threads (up to 1024); then the looped row. Plans the register model says
  // cannot fit are left out. Measured (H200, 2026-11-23): softmax bf16 H=4096 spilled with
  // the prefetch at 128 threads per row; 128 without took 38.1 us against 41.9 at 256 with;
  // W1 bf16 H=16384 spilled with it at 512: in shared memory 144.6 us (89.8 % of a copy),
  // 1024 threads 164.6 (78.7 %). Shared memory is not the first choice: W1 f16 H=4096 took
  // 45.1 us there, 41.7 in registers.
  // The shared-memory prefetch (aligned rows): the next rows of a block in dynamic shared
  // memory, which the blocks that keep 1024 threads resident must share on an SM. Its weights
  // load through the read-only path; with plain loads it is the last retry before the looped
  // row: the read-only loads let ptxas hoist the next vector's weights, and at the register
  // limit that spilled (W1 f16 H=65536: 48 B), while the looped row re-reads the row and its
  // weights every pass (kab, H200, B=8192, % of a copy, looped -> plain weights: W1 f16 65536
  // 45.6 -> 83.5, W1 f32 32768 46.8 -> 87.4). Not earlier: W1 f32 20480 took 640 threads so,
  // 82.1, against 85 at 1024 threads with the read-only loads.
  int64_t row_in_bytes = 0;
  for (size_t k = 0; k < plan.operands.size(); ++k)
    if (!plan.operands[k].is_output && plan.operands[k].access == Access::Full)
      row_in_bytes += dtype_size(facts.operands[k].dtype);
  // Rows per block at t threads per row: blocks of at least 256 threads where rows are short.
  auto rows_per_block = [](int64_t t) { return std::max<int64_t>(1, 256 / t); };
  // The next rows of a block in shared memory, for rows (or a cluster block's share) of
  // `row_vectors`; they fit where the blocks that keep 1024 threads resident fit an SM.
  auto smem_bytes = [&](int64_t t, int64_t row_vectors) {
    return rows_per_block(t) * ((row_vectors + t - 1) / t) * t * vec * row_in_bytes;
  };
  auto smem_fits = [&](int64_t t, int64_t row_vectors) {
    const int64_t bytes = smem_bytes(t, row_vectors), blocks = min_resident_blocks(t * rows_per_block(t));
    return !col_vec && bytes <= dev.smem_per_block_optin - 8192 && (bytes + 8192) * blocks <= dev.smem_per_sm;
  };
  // A block must fit the SM's register file, and a thread has at most 255.
  // The limit includes, with a quarter's slack, the cap of min_blocks below (1024 threads
  // resident: 64 registers) that ptxas applies through __launch_bounds__. Without it the model
  // let W1 f32 try plans of 96 registers at every size, each compiled, spilled and retried (3
  // retries before the plan); the slack keeps plans the model overestimates, which ptxas fits
  // (softmax bf16 H=768: 68 estimated, 58 used).
  auto fits = [&](int64_t t, bool prefetch_in_registers, int64_t row_vectors) {
    const int64_t batch = (row_vectors + t - 1) / t, threads = t * rows_per_block(t);
    const int64_t launch_cap = dev.regs_per_sm / (min_resident_blocks(threads) * threads) / 8 * 8;
    const int64_t limit =
        std::min<int64_t>({int64_t{dev.max_regs_per_thread}, dev.regs_per_block / threads, launch_cap + launch_cap / 4});
    return batch <= 16 && estimate_registers(batch, vec, held, widest, prefetch_in_registers) <= limit;
  };
  auto trimmed = [&](int64_t t) { return trimmed_threads(t, nvec); };
  auto phase_fits = [&](int64_t t) { return !col_vec || phase_covers(t, nvec, vec, facts.C); };
  // The weight ring beside the shared-memory prefetch (see write_inner): rows of 1024 threads,
  // one block per SM, aligned. Slots of a vector per thread, as many as the rest of the SM's
  // shared memory holds (less 1 KB for the system, 1 KB for the static reductions), up to two
  // per weight; at least one per weight, so a pass's weights of a batch fit at once. Measured
  // (H100, B=8192, % of a copy, plain weight loads -> ring): W1 f16 H=65536 78.0 -> 92.8, bf16
  // 78.5 -> 92.5, f32 32768 83.2 -> 93.1 (those kernels reserved 6 slots and used 4; now 4 are
  // reserved: the same code, 32 KB more L1, not yet measured). Not where blocks share an SM:
  // their weights hit L1 (W1 f32 12288 and 16384, 2 blocks: 98.1 -> 93.6, 98.8 -> 94.3; the
  // ring's copies bypass it).
  int64_t col_bytes = 0;
  for (size_t k = 0; k < plan.operands.size(); ++k)
    if (!plan.operands[k].is_output && plan.operands[k].access == Access::Col)
      col_bytes = std::max<int64_t>(col_bytes, dtype_size(facts.operands[k].dtype));
  auto ring_slots = [&](int64_t t) -> int {
    if (!weights || col_vec || t < 1024) return 0;
    const int64_t avail = std::min(dev.smem_per_block_optin, dev.smem_per_sm - 1024) - 1024 - smem_bytes(t, nvec);
    int64_t k = std::min<int64_t>(2 * weights, avail / (trimmed(t) * vec * col_bytes));
    // As many as divide a row's weight vectors where each weight is read in one pass (write_inner
    // takes that many; the rest would be shared memory taken from L1 for nothing).
    while (k > weights && (weights * ((nvec + t - 1) / t)) % k) --k;
    return k >= weights ? static_cast<int>(k) : 0;
  };
  struct Try {
    int64_t tpr;
    bool prefetch, smem, looped, ldg = false;
    int ring = 0, cluster = 1;
  };
  // Rows no block holds, on Hopper: split over a cluster of 2, 4 or 8 blocks, each holding its
  // share in registers as a shorter row would, so the row is read from DRAM once and its weights
  // once, where the looped row reads both every pass. Each reduction waits on the whole cluster,
  // so blocks of at most 512 threads come first: two per SM, one computes while the other waits.
  // Rows with more than one reduction (more than one wait) first try the fewest blocks whose
  // share fits without the prefetch, 256 or 512 threads, the next row in shared memory (two
  // blocks' next rows fitting an SM): the most vectors per thread, the fewest waits per byte.
  // Then the prefetch in registers, from the fewest blocks; then 1024-thread blocks in
  // clusters of 2 or 4; then without the prefetch: the retries after spills. Measured (H100, %
  // of a copy; W1 f32 B=8192 H=65536, W1 f16 / softmax bf16 / rms bf16 B=2048 H=131072): looped
  // 61 / 58 / 64 / 72; clusters of 4 x 1024 threads 70 / 68 / 68 / 91; 8 x 512 with the
  // prefetch in registers 80 / 75 / 73 / 91; 4 x 512 with the next row in shared memory – (W1
  // f32 spills) / 85 / 80 / 82. Clusters of 8 fill a GPC's SMs unevenly: 30 fit at once where
  // 33 would fill the SMs (ncu). Not 8 x 1024 threads: W1 f32 65536 (2 vectors each) 38 %,
  // 131072 (4 each, no prefetch) 54 against 57 looped. Not for phase-shifted rows (their
  // vectors are the block's own), nor rows of several per block. Those figures predate pushed
  // partials and resident weights (see combine_across_cluster, perf-notes 2026-11-25 e): with
  // them W1 f16's 4 x 512 plan spills and 8 x 512 takes 92 %, W1 f32 95, softmax (4 x 512) 87.
  auto cluster_tries = [&] {
    std::vector<Try> tries;
    if (dev.cc_major < 9 || col_vec) return tries;
    bool found = reductions <= 1;  // one wait per row: rms 131072 91 -> 82 so
    for (int n : {2, 4, 8})
      for (int64_t t : {256, 512})  // the most vectors per thread that fit: fewer waits per byte
        if (!found && fits(t, false, (nvec + n - 1) / n) && smem_fits(t, (nvec + n - 1) / n)) {
          tries.push_back({t, true, true, false, false, 0, n});
          found = true;
        }
    for (bool prefetch : {true, false}) {
      for (int n : {2, 4, 8}) {
        const int64_t share = (nvec + n - 1) / n;
        for (int64_t t = std::max<int64_t>(256, base_threads_per_row(share, vec)); t <= 512; t *= 2)
          if (fits(t, prefetch, share)) {
            tries.push_back({t, prefetch, false, false, false, 0, n});
            break;
          }
      }
      for (int n : {2, 4})
        if (fits(1024, prefetch, (nvec + n - 1) / n)) tries.push_back({1024, prefetch, false, false, false, 0, n});
    }
    return tries;
  };
  auto plans_to_try = [&] {
    std::vector<Try> tries, plain_weights;
    bool prefetch_first = pick && pick->threads_per_row ? pick->prefetch : kPrefetchByDefault;
    for (int64_t t = tpr; !pick_looped; t = std::min<int64_t>(1024, 2 * t)) {
      if (!phase_fits(t)) {
        if (t >= 1024) break;
        continue;
      }
      const bool tried = std::any_of(tries.begin(), tries.end(), [&](const Try& x) {  // as 2t below
        return x.tpr == t && x.prefetch && !x.smem && x.cluster == 1;
      });
      if (prefetch_first && fits(t, true, nvec) && !tried) tries.push_back({t, true, false, false});
      // Twice the threads with the prefetch in registers before this many with the next row in
      // shared memory, where those blocks still share an SM and the row already spans warps.
      // Same run (H100, % of a copy, 256 / 224 threads in shared memory -> 416 / 352 in
      // registers): W1 f32 B=8192 4098 92.4 -> 98.9, 4100 91.6 -> 99.6, 4104 95.0 -> 99.8, 4112
      // 94.5 -> 100.0; B=16384 4098 90.0 -> 98.5, 4100 88.7 -> 99.0. Not from one warp (its
      // reductions would take barriers): W1 bf16 1024 18.05 us at 32 threads in shared memory,
      // 18.35 at 64 in registers (autotune).
      if (prefetch_first && t >= 64 && 2 * t <= 512 && phase_fits(2 * t) && fits(2 * t, true, nvec))
        tries.push_back({2 * t, true, false, false});
      if (prefetch_first && smem_fits(t, nvec) && fits(t, false, nvec)) {
        // Before a row of 1024 threads, one block per SM, with the weight ring, where the row has
        // more than one reduction (a block alone on its SM idles through each wait): the row
        // split over a cluster of blocks of 512 threads with the prefetch in registers, two per
        // SM (resident weights, pushed partials). Same run (H100, % of a copy, ring -> cluster of
        // 4 x 512): B=8192 W1 f16 65536 92.5 -> 94.3, bf16 65536 92.5 -> 94.1, f32 32768 93.0 ->
        // 94.7; B=512 W1 f16 65536 82.4 -> 86.8; B=16 47.5 -> 58.7. Not rms (one reduction):
        // B=8192 H=65536 95.7 -> 93.0. Nor other cluster plans: W1 f32 20480 in clusters of 8 x
        // 224 93.4 -> 90.5.
        const int k = ring_slots(t);
        if (k && reductions > 1)
          for (const Try& c : cluster_tries())
            if (c.tpr == 512 && c.prefetch && !c.smem) tries.push_back(c);
        if (k) tries.push_back({t, true, true, false, false, k});
        tries.push_back({t, true, true, false, weights > 0});
        if (weights > 0) plain_weights.push_back({t, true, true, false});
      }
      if (fits(t, false, nvec)) tries.push_back({t, false, false, false});
      prefetch_first = kPrefetchByDefault;
      if (t >= 1024) break;
    }
    tries.insert(tries.end(), plain_weights.begin(), plain_weights.end());
    if (tries.empty() && !pick_looped) tries = cluster_tries();
    tries.push_back({tpr, false, false, true});
    return tries;
  };
  std::vector<Try> tries = plans_to_try();
  // Only the looped row or clusters fit: recomputing what can be (plan_stages) may let a block
  // hold the row.
  bool recompute = false;
  if (!pick_looped && (tries.size() == 1 || tries.front().cluster > 1)) {
    if (const double fewer = held_per_element(plan_stages(f, s, ks, true, true)); fewer < held) {
      held = fewer;
      recompute = true;
      tries = plans_to_try();
    }
  }
  if (attempt >= static_cast<int>(tries.size())) return false;
  const Try& pick_now = tries[attempt];
  tpr = pick_now.tpr;
  const int64_t share = (nvec + pick_now.cluster - 1) / pick_now.cluster;  // of a cluster's block
  int64_t batch = (share + tpr - 1) / tpr;
  tpr = trimmed_threads(tpr, share);
  p.cluster = pick_now.cluster;
  p.threads_per_row = static_cast<int>(tpr);
  p.rows_per_block = static_cast<int>(rows_per_block(tpr));
  p.threads = p.threads_per_row * p.rows_per_block;
  p.batch = static_cast<int>(batch);
  p.prefetch = pick_now.prefetch;
  p.prefetch_smem = pick_now.smem;
  p.ldg_weights = pick_now.ldg;
  p.weight_ring = pick_now.ring;
  p.recompute = recompute && !pick_now.looped;
  p.dyn_smem = p.prefetch_smem ? static_cast<int>(smem_bytes(tpr, share) + p.weight_ring * tpr * vec * col_bytes) : 0;
  p.col_vec = col_vec;
  if (pick_now.looped) {
    // Looped: stream the row once per pass (re-reads hit L2 for rows of a few hundred KB),
    // with vectors that every row start allows.
    if (col_vec) {
      p.vec = vec = aligned_vec;
      p.col_vec = 0;
      nvec = (facts.C + vec - 1) / vec;
    }
    p.batch = 0;
    p.prefetch = p.prefetch_smem = false;
    p.dyn_smem = p.weight_ring = 0;
    p.threads_per_row = pick_looped ? pick->threads_per_row
                                    : static_cast<int>(std::min<int64_t>(1024, std::max<int64_t>(32, pow2ceil(nvec / 8))));
    p.threads = std::max(p.threads_per_row, 256);
    p.rows_per_block = p.threads / p.threads_per_row;
  }
  // Register cap: keep >= 1024 threads resident (64 registers per thread). Without it ptxas
  // took 69 registers at H = 12288 (512 threads): one block per SM instead of two, 40% slower.
  // A plan that then spills is rebuilt by prepare_kernel with attempt + 1 (more threads).
  p.min_blocks = static_cast<int>(min_resident_blocks(p.threads));
  // Resident weights (see write_inner): as many as fit beside the blocks an SM keeps, in operand
  // order, where the weights otherwise load less than 16 bytes at a time (rows that do not start
  // 16-byte aligned) or come from L2 every row (a cluster's block reads its share of the weights,
  // which no L1 holds). Measured (H100, B=8192, % of a copy, same run, without -> with): W1 f16
  // 770 89.0 -> 103.7, 772 100.4 -> 106.5, 4098 87.8 -> 94.7, 4100 95.3 -> 98.1, 5140 94.4 ->
  // 97.4 (bf16 alike), W1 f32 770 95.5 -> 102.9, W1 f32 65536 (clusters of 8) 80.5 -> 84.8. Not
  // where the weights load 16 bytes at a time and hit L1: W1 f16 776 104.8 -> 85.0, 2048 95.6
  // -> 81.2, W1 f32 1024 99.0 -> 85.5, rms bf16 4104 102.1 -> 85.7.
  if (p.batch > 0 && p.vec > 1 && !p.prefetch_smem && !p.col_vec && (p.cluster > 1 || p.vec * widest < 16)) {
    int64_t bytes = 0;
    int i = 0;
    for (size_t k = 0; k < plan.operands.size(); ++k)
      if (!plan.operands[k].is_output && plan.operands[k].access == Access::Col) {
        const int64_t more = int64_t{p.batch} * p.threads_per_row * p.vec * dtype_size(facts.operands[k].dtype);
        if (p.vec * dtype_size(facts.operands[k].dtype) >= 4 &&  // cp.async copies 4, 8 or 16 bytes
            bytes + more <= dev.smem_per_block_optin - 8192 && (bytes + more + 8192) * p.min_blocks <= dev.smem_per_sm) {
          bytes += more;
          p.resident |= 1 << i;
        }
        ++i;
      }
    p.dyn_smem = static_cast<int>(bytes);
  }
  // Row tickets (see write_inner): prefetching blocks take their later rows from a counter.
  // Measured (H200, B=8192, % of a copy, fixed stride -> tickets; kab): W1 f16 5140 83 -> 89,
  // 12288 88 -> 95, 16384 84 -> 92, W1 f32 16384 76 -> 94, softmax 12288 90 -> 97, rms 32768
  // 93 -> 97. Not where one block fills an SM and no weight is read: softmax 20480 and 32768
  // fell 92 -> 88 and 94 -> 89 (the same fixed rows through the ticket code kept 92: the order
  // of the rows, not the atomics), while W1 and rms at one block per SM gained 2-4 points.
  // Nor with the shared-memory prefetch: those plans hold the longest rows at the register
  // limit, and the ticket's registers made them spill (rms bf16 65536, W1 f32 20480).
  // Nor in clusters: their blocks must take the same rows.
  p.tickets = p.prefetch && !p.prefetch_smem && p.cluster == 1 && p.threads_per_row > 32 && (p.min_blocks > 1 || weights > 0);
  return true;
}

Grid launch_grid(const KernelPlan& plan, const LaunchFacts& facts, const DeviceInfo& dev, int resident_per_sm,
                 int resident_clusters) {
  const auto& p = plan.params;
  Grid g;
  g.block = static_cast<unsigned>(p.threads);
  g.smem = static_cast<unsigned>(p.dyn_smem);
  if (plan.shape.category == KernelCategory::Inner) {
    // Persistent kernels assume every batch but the last lies inside the row (see write_inner);
    // phase-shifted ones that the batches cover the row and that at every phase the batches but
    // the last hold whole vectors (slots 1 .. (batch - 1) * tpr). A cluster's blocks share a row.
    const int64_t nvec = (facts.C + (p.col_vec ? p.vec - p.col_vec : 0) + p.vec - 1) / p.vec,
                  tpr = int64_t{p.threads_per_row} * p.cluster;
    const bool covers =
        nvec <= p.batch * tpr && (p.col_vec ? ((p.batch - 1) * tpr + 1) * p.vec <= facts.C && facts.C % p.col_vec == 0
                                            : nvec > (p.batch - 1) * tpr);
    if (p.batch > 0 && !covers)
      throw Error("kernel " + plan.name + " (batch " + std::to_string(p.batch) + " x " + std::to_string(tpr) +
                  " threads) cannot cover rows of " + std::to_string(facts.C) + " elements");
    int64_t blocks = (facts.R + p.rows_per_block - 1) / p.rows_per_block;
    // Prefetching blocks (clusters) stay resident and stride over the rows: one wave, no more.
    const int64_t resident = p.cluster > 1 ? (resident_clusters > 0 ? resident_clusters
                                                                    : dev.sm_count / p.cluster * std::max(1, resident_per_sm))
                                           : int64_t{dev.sm_count} * std::max(1, resident_per_sm);
    if (p.prefetch) blocks = std::min<int64_t>(blocks, std::max<int64_t>(1, resident));
    g.x = static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, (int64_t{1} << 30) / p.cluster) * p.cluster);
    g.cluster = static_cast<unsigned>(p.cluster);
    return g;
  }
  int64_t per_block = static_cast<int64_t>(p.threads) * p.unroll * p.vec;
  int64_t bx = std::max<int64_t>(1, (facts.C + per_block - 1) / per_block);
  const int64_t resident = static_cast<int64_t>(dev.sm_count) * std::max(1, dev.max_threads_per_sm / p.threads);
  // Full reductions: one resident wave (each warp adds one atomic). Pointwise: many waves.
  int64_t cap = plan.shape.category == KernelCategory::Full ? resident : int64_t{1} << 30;
  bx = std::min(bx, cap);
  int64_t by = std::clamp<int64_t>(facts.R, 1, 65535);
  if (plan.shape.category == KernelCategory::Full) by = 1;
  else by = std::min(by, std::max<int64_t>(1, resident * 8 / bx));
  g.x = static_cast<unsigned>(bx);
  g.y = static_cast<unsigned>(by);
  return g;
}

}  // namespace solder
