// Row reductions and persistent normalization: TPR threads share one row, RPB rows per block.
// Persistent (batch > 0): each thread holds `batch` vectors of the row in registers; element
// values needed by later passes stay there, so the row is read from memory once. The first
// pass's row inputs are loaded for every batch before any is used, so a thread has all its
// loads in flight at once (one batch at a time left the kernels latency-bound). Looped
// (batch == 0): each pass streams the row again (rows too long for registers).
#include <algorithm>
#include <memory>

#include "codegen/kernel_writer.h"
#include "codegen/row_prefetch.h"
#include "codegen/weight_ring.h"

namespace solder::codegen_detail {

namespace {
// What pass q of the row computes: the inputs of its reductions, the element outputs stored
// in it and the values it materializes for later passes.
struct Pass {
  std::vector<int> targets, elem_outs, steps, materialized;
};
Pass pass_at(const Writer& w, int q) {
  const StagePlan& sp = w.sp;
  Pass p;
  for (size_t i = 0; i < sp.steps.size(); ++i)
    if (sp.steps[i].level == q + 1) {
      p.steps.push_back(static_cast<int>(i));
      p.targets.push_back(sp.steps[i].input);
    }
  for (int k : w.output_slots())
    if (!sp.row_level[w.op(k).value] && sp.stage[w.op(k).value] == q) {
      p.elem_outs.push_back(k);
      p.targets.push_back(w.op(k).value);
    }
  for (int v : sp.materialized)
    if (sp.stage[v] == q) {
      p.materialized.push_back(v);
      p.targets.push_back(v);
    }
  return p;
}
std::vector<int> pass_targets(const Writer& w, int q) { return pass_at(w, q).targets; }

// How two partial results of step st combine: max and min as themselves; sums, means and
// var_mean's steps (sums of values or of squared deviations) as a sum.
Op partial_op(const ReductionStep& st) { return st.kind == Op::Max || st.kind == Op::Min ? st.kind : Op::Sum; }

// Combines step i's accumulator `a` (of type t) across the row's threads, leaving the row's
// total in every thread: shuffles within a warp, then, where a row spans warps, each warp's
// partial through the row's shared-memory slots sm<i> and two barriers (the second because
// the next row writes the same slots; alternating two sets saves it but costs a register: W1
// H=16384 then spilled at 512 threads, no gain measured). Welford partials are three floats.
std::string combine_across_row(const ReductionStep& st, int i, const std::string& a, DType t, int tpr) {
  std::string c;
  if (st.welford) {
    c += "    " + a + " = warp_welford<" + num(std::min(tpr, 32)) + ">(" + a + ");\n";
  } else {
    c += "    " + a + " = warp_reduce<" + red_struct(partial_op(st)) + ", " + num(std::min(tpr, 32)) + ">(" + a + ");\n";
  }
  if (tpr <= 32) return c;
  const std::string sm = "sm" + num(i), wpr = num(tpr / 32);
  if (st.welford) {
    auto slot = [&](const std::string& warp, int field) {
      return sm + (warp == "0" ? "" : " + " + warp + " * 12u") + (field ? " + " + num(4 * field) + "u" : "");
    };
    auto partial = [&](const std::string& warp) {
      return "{ld_shared<float>(" + slot(warp, 0) + "), ld_shared<float>(" + slot(warp, 1) + "), ld_shared<float>(" + slot(warp, 2) + ")}";
    };
    c += "    if ((tr & 31) == 0) {\n";
    for (int f = 0; f < 3; ++f) c += "      st_shared<float>(" + slot("(tr >> 5)", f) + ", " + a + (f == 0 ? ".n" : f == 1 ? ".mean" : ".m2") + ");\n";
    c += "    }\n    __syncthreads();\n    " + a + " = " + partial("0") + ";\n";
    c += "#pragma unroll\n    for (int k = 1; k < " + wpr + "; ++k)\n      " + a + " = welford_merge(" + a + ", " + partial("k") + ");\n";
  } else {
    // Slots of the register type: a bf16 max reduces in floats (2-byte slots overlapped them).
    const std::string ty = compute_type(t), sz = num(compute_bytes(t)) + "u";
    c += "    if ((tr & 31) == 0) st_shared<" + ty + ">(" + sm + " + (tr >> 5) * " + sz + ", " + a + ");\n    __syncthreads();\n";
    c += "    " + a + " = ld_shared<" + ty + ">(" + sm + ");\n";
    c += "#pragma unroll\n    for (int k = 1; k < " + wpr + "; ++k) " + a + " = " +
         combine(partial_op(st), a, "ld_shared<" + ty + ">(" + sm + " + k * " + sz + ")") + ";\n";
  }
  return c + "    __syncthreads();\n";
}

// Rows split over a cluster (KernelParams::cluster): the block's total `a` of step i, left by
// combine_across_row in every thread, combined with the other blocks' in rank order, so every
// block gets the same bits. Thread 0 pushes the total into slot `crank` of every block's array
// cl<i> (push_cluster: st.async, counted in bytes on that block's mbarrier mb<i>), and the block
// waits on its own mbarrier only: no cluster barrier, whose release waited on the next row's
// prefetch loads in flight (ncu, W1 f32 65536: membar stalls; H100, % of a copy, cluster
// barrier -> pushed: W1 f32 B=8192 H=65536 84.9 -> 95.1, W1 bf16 B=2048 H=131072 79.4 -> 93.1,
// softmax bf16 79.3 -> 86.8). Slots and mbarriers alternate with the row (cpar; the mbarrier's
// phase cph flips every other row): a block pushes into a slot again two rows later, after it
// had every block's push of the row between, which each block sent after reading this one.
// The loops stay rolled: unrolled, the eight partials' loads were all in flight at once and
// W1 f32 65536's plans spilled.
std::string combine_across_cluster(const ReductionStep& st, int i, const std::string& a, DType t) {
  const std::string cl = "cl" + num(i), mb = "mb" + num(i) + " + cpar * 8u";
  const std::string ty = st.welford ? "float4" : compute_type(t);
  const std::string sz = st.welford ? "16u" : num(compute_bytes(t)) + "u";
  const std::string val = st.welford ? "make_float4(" + a + ".n, " + a + ".mean, " + a + ".m2, 0.f)" : a;
  auto slot = [&](const std::string& r) { return cl + " + (cpar * CL + " + r + ") * " + sz; };
  auto part = [&](const std::string& r) {
    return st.welford ? "to_welford(ld_shared<float4>(" + slot(r) + "))" : "ld_shared<" + ty + ">(" + slot(r) + ")";
  };
  std::string c = "    if (tr == 0) {\n      mbar_expect(" + mb + ", CL * " + sz + ");\n#pragma unroll 1\n"
                  "      for (unsigned r = 0; r < CL; ++r) push_cluster<" + ty + ">(" + slot("crank") + ", " + mb + ", r, " + val + ");\n"
                  "    }\n    mbar_wait(" + mb + ", cph);\n";
  c += "    " + a + " = " + part("0u") + ";\n#pragma unroll 1\n    for (unsigned r = 1; r < CL; ++r) " + a + " = " +
       (st.welford ? "welford_merge(" + a + ", " + part("r") + ")"
                   : combine(partial_op(st), a, part("r"))) + ";\n";
  return c;
}

// Rows split over blocks of the grid (KernelParams::row_split): exchange `k` of the row. Thread 0
// stores the block's total `a` of step i (in every thread after combine_across_row) into its
// rank's slot of the exchange (16 bytes, in L2), arrives on the row's counter and waits for
// every block of the row; then warp 0 combines the SPLIT partials (lane l those of ranks l,
// l + 32, ...; then a shuffle tree, Welford partials by Chan's merge, lane 0's result for all),
// which every block does alike, so all have the same bits, and passes them to the block through
// shared memory (gx<i>).
std::string combine_across_grid(const ReductionStep& st, int i, int k, const std::string& a, DType t) {
  const std::string ty = st.welford ? "float4" : compute_type(t), held = st.welford ? "Welford" : ty;
  const std::string val = st.welford ? "make_float4(" + a + ".n, " + a + ".mean, " + a + ".m2, 0.f)" : a;
  const std::string gx = "gx" + num(i), id = st.welford ? "Welford{0.f, 0.f, 0.f}" : red_identity(partial_op(st), t);
  auto slot = [&](const std::string& r) {
    return "(" + ty + "*)(gpart + ((" + num(k) + "ll * nblk + blk) * SPLIT + " + r + ") * 16)";
  };
  auto part = [&](const std::string& r) {
    return st.welford ? "to_welford(__ldcg(" + slot(r) + "))" : "__ldcg(" + slot(r) + ")";
  };
  std::string c = "    if (threadIdx.x == 0) {\n      __stcg(" + slot("crank") + ", " + val + ");\n      grid_arrive_wait(gcount, " +
                  num(k + 1) + "u * SPLIT);\n    }\n    __syncthreads();\n";
  c += "    if (threadIdx.x < 32) {\n      " + held + " g = threadIdx.x < SPLIT ? " + part("threadIdx.x") + " : " + id + ";\n";
  c += "#pragma unroll 1\n      for (unsigned r = threadIdx.x + 32; r < SPLIT; r += 32) g = " +
       (st.welford ? "welford_merge(g, " + part("r") + ")" : combine(partial_op(st), "g", part("r"))) + ";\n";
  c += "      g = " + (st.welford ? std::string("warp_welford<32>(g)") : "warp_reduce<" + std::string(red_struct(partial_op(st))) + ", 32>(g)") +
       ";\n      if (threadIdx.x == 0) " + gx + " = g;\n    }\n    __syncthreads();\n    " + a + " = " + gx + ";\n";
  return c;
}

// The inner template's state for one kernel: what its setup, row loop and passes share.
class InnerKernel {
 public:
  InnerKernel(Writer& writer, KernelSource& source)
      : w(writer),
        out(source),
        P(writer.plan.params),
        sp(writer.sp),
        c(writer.code),
        persistent(P.batch > 0),
        tpr(P.threads_per_row),
        rpb(P.rows_per_block),
        cluster(P.cluster),
        split(P.row_split),
        wpr(std::max(1, tpr / 32)),
        mat(sp.materialized.begin(), sp.materialized.end()),
        blk(cluster > 1 || split > 1 ? "blk" : "(i64)blockIdx.x"),
        nblk(cluster > 1 || split > 1 ? "nblk" : "(i64)gridDim.x"),
        outs(writer.output_slots()) {}

  void write() {
    kernel_at = c.size();
    declare_kernel();
    plan_loads();
    load_resident_weights();
    c += prefetch->declarations();
    if (!prefetch->empty() && P.prefetch) c += prefetch->issue(blk + " * RPB + ry", 1);
    if (ring->active()) c += ring->prologue();
    open_row_loop();
    row_em = std::make_unique<ExprEmitter>(w.f, [this](int v) -> std::string {
      if (row_names.count(v)) return row_names[v];
      if (w.is_input(v)) {
        const int k = w.operand_index.at(v);
        const std::string ahead = prefetch->row_value(k);
        return load_convert(w.dt(v), ahead.empty() ? w.ptr(k) + "[" + w.offset(k, "rowc", "0") + "]" : ahead);
      }
      return "";
    });
    store_row_outputs(0);
    declare_held();
    for (int q = 0; q <= sp.max_level; ++q) element_pass(q);
    close_kernel();
    if (persistent && P.shift) c.insert(kernel_at, shift_pair_helper());
  }

 private:
  Writer& w;
  KernelSource& out;
  const KernelParams& P;
  const StagePlan& sp;
  std::string& c;
  const bool persistent;
  const int tpr, rpb, cluster, split, wpr;
  const std::set<int> mat;
  const std::string blk, nblk;  // a cluster's (or split row's) blocks share rows: block blk of nblk (see row_slot)
  int exchanges = 0;            // split rows: the row's exchanges so far (combine_across_grid)
  const std::vector<int> outs;
  bool block_stats = false;
  std::vector<std::string> acc;
  std::vector<DType> acc_t;
  int pf_pass = 0;
  size_t kernel_at = 0;  // where the kernel's signature starts (helpers go before it)
  bool phased = false, smem_pf = false, tickets = false;
  int phase_operand = -1;
  std::unique_ptr<RowPrefetch> prefetch;
  std::unique_ptr<WeightRing> ring;
  std::vector<int> passes;  // the passes with work, in order
  std::string next_rows;
  std::map<int, std::string> row_names;
  std::unique_ptr<ExprEmitter> row_em;  // row scope: statistics and what varies only along rows
  std::map<int, int> narrow;            // held value -> the f16/bf16 value whose bits are held (pairs)

  // The signature, constants, thread indices, cluster set-up and the reductions' shared memory.
  void declare_kernel() {
    c += "extern \"C\" __global__ void " + w.launch_bounds(P.min_blocks) + " " + w.plan.name + "(const Params p) {\n";
    c += "  constexpr int VEC = " + num(P.vec) + ", TPR = " + num(tpr) + ", RPB = " + num(rpb) +
         (persistent ? ", BATCH = " + num(P.batch) : std::string()) +
         (cluster > 1 ? ", CL = " + num(cluster) + ", RT = TPR * CL" : std::string()) +
         (split > 1 ? ", SPLIT = " + num(split) + ", RT = TPR * SPLIT" : std::string()) + ";\n";
    w.pointers(1);
    // Persistent rows fit in registers, so C < 2^31: 32-bit column compares and offsets.
    c += "  const int tr = threadIdx.x % TPR, ry = threadIdx.x / TPR;\n  const i64 R = p.R;\n  const " +
         std::string(persistent ? "int C = (int)p.C" : "i64 C = p.C") + ";\n";
    if (cluster > 1)
      c += "  const int rt = (int)cluster_rank() * TPR + tr;\n  const i64 blk = blockIdx.x / CL, nblk = gridDim.x / CL;\n"
           "  unsigned cpar = 0, cph = 0;\n  const unsigned crank = cluster_rank();\n";
    // Split rows: a block's row and rank come from a ticket (thread 0's atomic), so a block waits
    // only on blocks already running or on the rest of its own row (see grid_arrive_wait). The
    // scratch: the next ticket, the blocks finished, a counter per row, then the partials.
    if (split > 1)
      c += "  unsigned* const gctr = (unsigned*)p.scratch;\n  __shared__ unsigned gticket_;\n"
           "  if (threadIdx.x == 0) gticket_ = atomicAdd(gctr, 1u);\n  __syncthreads();\n"
           "  const unsigned crank = gticket_ % SPLIT;\n  const i64 blk = gticket_ / SPLIT, nblk = (i64)gridDim.x / SPLIT;\n"
           "  const int rt = (int)crank * TPR + tr;\n  unsigned* const gcount = gctr + 2 + blk;\n"
           "  const char* const gpart = (const char*)p.scratch + (2 + nblk + 3) / 4 * 16;\n";
    // var_mean over a cluster takes one cluster-wide wait, not two: each block's exact two-pass
    // mean and squared deviations over its own columns (nloc of them), merged across blocks as
    // Welford partials (Chan). Every batch's vector lies in the row or wholly past it (C % VEC == 0).
    block_stats = (cluster > 1 || split > 1) && std::any_of(sp.steps.begin(), sp.steps.end(),
                                             [](const ReductionStep& st) { return st.var_step; });
    if (block_stats)
      c += "  int nloc_v = 0;\n#pragma unroll\n  for (int b = 0; b < BATCH; ++b) nloc_v += min(max(C / VEC - b * RT - (rt - tr), 0), TPR);\n"
           "  const float nloc = (float)(nloc_v * VEC);\n";
    acc.resize(sp.steps.size());
    acc_t.resize(sp.steps.size());
    for (size_t i = 0; i < sp.steps.size(); ++i) {
      acc[i] = "acc" + num(static_cast<long long>(i));
      acc_t[i] = accumulator_dtype(w.f.value(w.f.nodes()[sp.steps[i].node].out[0]).dtype);
      if (tpr > 32) {
        // Warp partials: this row's slots at a 32-bit shared address (see cp_async); Welford
        // partials take three floats each.
        const std::string t = compute_type(acc_t[i]), n = num(static_cast<long long>(i));
        c += "  __shared__ " + t + " sm" + n + "_[RPB][" + num(sp.steps[i].welford ? 3 * wpr : wpr) + "];\n";
        c += "  const unsigned sm" + n + " = (unsigned)__cvta_generic_to_shared(&sm" + n + "_[ry][0]);\n";
      }
      if (cluster > 1) {  // every block's total (a Welford partial in a float4), by row parity and rank
        const std::string n = num(static_cast<long long>(i));
        const bool wf = sp.steps[i].welford || sp.steps[i].var_step;
        c += "  __shared__ __align__(16) " + std::string(wf ? "float4" : compute_type(acc_t[i])) + " cl" + n + "_[2 * CL];\n";
        c += "  __shared__ unsigned long long mb" + n + "_[2];\n";
        c += "  const unsigned cl" + n + " = (unsigned)__cvta_generic_to_shared(&cl" + n + "_[0]), mb" + n +
             " = (unsigned)__cvta_generic_to_shared(&mb" + n + "_[0]);\n";
        c += "  if (threadIdx.x == 0) {\n    mbar_init(mb" + n + ", 1);\n    mbar_init(mb" + n + " + 8u, 1);\n    mbar_init_fence();\n  }\n";
        if (i + 1 == sp.steps.size()) c += "  cluster_sync();  // the mbarriers, before any block pushes\n";
      }
      const ReductionStep& st = sp.steps[i];
      if (split > 1 && !(block_stats && st.kind == Op::VarMean && !st.var_step && !st.welford))  // exchanged: the
        c += "  __shared__ " + std::string(st.welford || st.var_step ? "Welford" : compute_type(acc_t[i])) + " gx" +
             num(static_cast<long long>(i)) + ";\n";  // row's total, from warp 0 to the block
    }
  }

  // Phase-shifted rows: the row's phase, from the first row-varying operand's address.
  std::string phase_of(const std::string& row) const {
    const std::string at = w.ptr(phase_operand) + " + " + w.offset(phase_operand, row, "0");
    return "(int)((unsigned long long)(" + at + ") / sizeof(*" + w.ptr(phase_operand) + ") & (VEC - 1))";
  }

  // What is loaded ahead (row_prefetch.h) and what streams through the weight ring.
  void plan_loads() {
    // Loaded ahead: the vector inputs of the first pass with work.
    std::vector<int> pf;
    while (pf_pass < sp.max_level && pass_targets(w, pf_pass).empty()) ++pf_pass;
    if (persistent)
      for (int k : w.element_inputs(pass_targets(w, pf_pass), [&](int v) {
             return sp.row_level[v] || (mat.count(v) && sp.stage[v] < pf_pass);
           }))
        if (w.vectorized(k) && w.op(k).access == Access::Full) pf.push_back(k);
    // Phase-shifted rows (col_vec > 0): a row that starts `ph` elements past a vec-aligned
    // address loads the `nv` aligned vectors that overlap it (vector v covers columns v * VEC -
    // ph onwards); only its first (v = 0) and last are partial. Slot s = b * TPR + tr holds vector
    // s + 1, and the slot after the last vector holds vector 0: every batch but the last holds
    // whole vectors only (launch_grid checks), loaded, reduced and stored as in aligned rows,
    // and only the last batch tests lanes (whole loads and stores, and no lane tests in the
    // reductions, each measured faster: perf-notes). Every row-varying operand has the same
    // phase (the scheduler checks), so one gives it.
    phased = persistent && P.col_vec > 0;
    for (int k = 0; k < static_cast<int>(w.plan.operands.size()) && phase_operand < 0; ++k)
      if (w.op(k).access == Access::Full) phase_operand = k;
    prefetch = std::make_unique<RowPrefetch>(w, std::move(pf), [this](const std::string& row) { return phase_of(row); });
    smem_pf = prefetch->in_smem();
    // Read-only weight loads (a plan choice: they cost registers, see the scheduler).
    w.nc_weights = smem_pf && P.ldg_weights;
    // The weight ring (see weight_ring.h): the weights each pass reads, where the plan has one.
    std::vector<std::vector<int>> targets_of(sp.max_level + 1);
    for (int q = 0; q <= sp.max_level; ++q)
      if (!(targets_of[q] = pass_targets(w, q)).empty()) passes.push_back(q);
    std::vector<std::vector<int>> streamed(sp.max_level + 1);
    if (P.weight_ring > 0)  // validated: with prefetch=smem, aligned rows, one per block
      for (int q : passes)
        for (int k : w.element_inputs(targets_of[q], [&](int v) {
               return sp.row_level[v] || (mat.count(v) && sp.stage[v] < q);
             }))
          if (w.op(k).access == Access::Col && w.vectorized(k)) streamed[q].push_back(k);
    ring = std::make_unique<WeightRing>(w, std::move(streamed), passes, pf_pass, prefetch->bytes());
    plan_staged();
    if (smem_pf || P.resident || !w.staged.empty())
      c += "  extern __shared__ __align__(16) unsigned char dyn_smem[];\n"
           "  const unsigned dsm = (unsigned)__cvta_generic_to_shared(dyn_smem);\n";
    for (const auto& [k, at] : w.staged) {  // the column step: the innermost column dim walked
      c += "  i64 cs" + num(k) + " = 0;\n";
      for (int d = w.ks.split; d < static_cast<int>(w.ks.dim_order.size()); ++d)
        c += "  if (p.dims[" + num(d) + "] > 1) cs" + num(k) + " = p.stride[" + num(k) + "][" + num(d) + "];\n";
    }
  }

  // Staged operands (Access::Staged, validated: held rows in one block): each takes a tile of
  // the block's RPB rows in dynamic shared memory (staged_tile_bytes, which the plan's dyn_smem
  // counts), one after another.
  void plan_staged() {
    int64_t at = 0;
    for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k)
      if (w.op(k).access == Access::Staged) {
        w.staged[k] = num(at);
        at += staged_tile_bytes(P, dtype_size(w.dt(w.op(k).value)));
      }
    if (at > P.dyn_smem)
      throw Error("kernel " + w.plan.name + ": its staged tiles take " + num(at) + " bytes of shared memory, the plan has " +
                  num(P.dyn_smem) + " (dyn_smem)");
    if (!w.staged.empty())
      out_helpers();
  }
  // 1, 2, 4 and 8-byte shared-memory accesses at 32-bit addresses (the runtime's ld_shared and
  // st_shared take 4 bytes and more), emitted only where a kernel stages.
  void out_helpers() {
    c.insert(kernel_at, R"CUDA(template <class T> __device__ __forceinline__ T ld_shared_elem(unsigned s) {
  if constexpr (sizeof(T) == 1) { unsigned short v; asm volatile("ld.shared.u8 %0, [%1];" : "=h"(v) : "r"(s)); return (T)v; }
  else if constexpr (sizeof(T) == 2) { unsigned short v; asm volatile("ld.shared.u16 %0, [%1];" : "=h"(v) : "r"(s)); return (T)v; }
  else return ld_shared<T>(s);
}
template <class T> __device__ __forceinline__ void st_shared_elem(unsigned s, T v) {
  if constexpr (sizeof(T) == 1) asm volatile("st.shared.u8 [%0], %1;" ::"r"(s), "h"((unsigned short)v));
  else if constexpr (sizeof(T) == 2) asm volatile("st.shared.u16 [%0], %1;" ::"r"(s), "h"((unsigned short)v));
  else st_shared<T>(s, v);
}
)CUDA");
  }

  // A staged operand's walk of the block's tile, column by column: thread t's row rb + sy and
  // first column sx (THREADS = TPR x RPB), its pointer `sp` into the operand (each row at its own
  // goff) and its slot `sd` in the tile.
  std::string tile_walk(int k, const std::string& at) const {
    const std::string t = storage_type(w.dt(w.op(k).value)), n = num(k);
    const int es = dtype_size(w.dt(w.op(k).value));
    return "    {\n      const int sy = (int)threadIdx.x % RPB, sx = (int)threadIdx.x / RPB;\n"
           "      const bool srow = rb + sy < R;\n"
           "      " + std::string(w.op(k).is_output ? "" : "const ") + t + "* sp = " + w.ptr(k) + " + (srow ? goff(p, " + n +
           ", rb + sy, 0) + (i64)sx * cs" + n + " : 0);\n"
           "      const unsigned sd = dsm + " + at + "u + (unsigned)(sy * " + num(staged_tile_pitch(P, es)) + " + sx) * " + num(es) + "u;\n";
  }

  // Staged inputs: the block's tiles for rows rb .. rb + RPB - 1, copied after every row of the
  // block is done with the last ones. Thread t copies elements t, t + THREADS, ... of the tile
  // taken column by column (a column's RPB rows adjacent: whole runs of rows per warp load),
  // eight loads in flight before their stores (all of them would sit beside the next row's
  // prefetched inputs in registers). Rows past R and columns past C are zeros.
  void copy_staged_tiles() {
    if (w.staged.empty()) return;
    c += "    __syncthreads();  // staged tiles: the block's rows are done with the last ones\n";
    bool inputs = false;
    for (const auto& [k, at] : w.staged) {
      if (w.op(k).is_output) continue;
      inputs = true;
      const std::string t = storage_type(w.dt(w.op(k).value)), n = num(k);
      const int es = dtype_size(w.dt(w.op(k).value));
      // Element i of the thread's share: row rb + sy, column sx + i * TPR (THREADS = TPR x RPB), so
      // one pointer walks the share: offsets per element hoisted out of the row loop would take
      // two registers each (ptxas spilled them).
      c += tile_walk(k, at) +
           "#pragma unroll\n      for (int i0 = 0; i0 < BATCH * VEC; i0 += 8) {\n        " + t + " sv[8];\n"
           "#pragma unroll\n        for (int i = 0; i < 8; ++i) {\n"
           "          sv[i] = i0 + i < BATCH * VEC && srow && sx + (i0 + i) * TPR < C ? *sp : (" + t + ")0;\n"
           "          if (i0 + i < BATCH * VEC && sx + (i0 + i + 1) * TPR < C) sp += (i64)TPR * cs" + n + ";\n"
           "        }\n#pragma unroll\n        for (int i = 0; i < 8; ++i)\n"
           "          if (i0 + i < BATCH * VEC) st_shared_elem<" + t + ">(sd + (unsigned)((i0 + i) * TPR * " + num(es) + "), sv[i]);\n"
           "      }\n    }\n";
    }
    if (inputs) c += "    __syncthreads();\n";
  }

  // Staged outputs: once every row of the block has stored its elements in the tile, the tile
  // goes out column by column (a column's RPB rows adjacent: whole runs of rows per warp store),
  // rows past R and columns past C left alone. The next rows' tiles wait on copy_staged_tiles'
  // barrier.
  void store_staged_tiles() {
    bool any = false;
    for (const auto& [k, at] : w.staged) any |= w.op(k).is_output;
    if (!any) return;
    c += "    __syncthreads();  // staged outputs: the block's rows are stored in their tiles\n";
    for (const auto& [k, at] : w.staged) {
      if (!w.op(k).is_output) continue;
      const std::string t = storage_type(w.dt(w.op(k).value)), n = num(k);
      const int es = dtype_size(w.dt(w.op(k).value));
      c += tile_walk(k, at) +
           "#pragma unroll 8\n      for (int i = 0; i < BATCH * VEC && srow && sx + i * TPR < C; ++i) {\n"
           "        *sp = ld_shared_elem<" + t + ">(sd + (unsigned)(i * TPR * " + num(es) + "));\n"
           "        if (sx + (i + 1) * TPR < C) sp += (i64)TPR * cs" + n + ";\n"
           "      }\n    }\n";
    }
  }

  // Looped rows: every other pass walks the row backwards, so it starts on what the pass
  // before read last, which is likeliest still in L2.
  bool reversed_pass(int q) const {
    return !persistent && (std::find(passes.begin(), passes.end(), q) - passes.begin()) % 2 == 1;
  }

  // Resident weights: a block keeps the same columns for every row it takes (one row per block;
  // a cluster's block its share), so each thread copies its vectors of these weights once, into
  // slots only it reads (no barrier), and every row reads them there instead of from L2.
  void load_resident_weights() {
    if (!P.resident) return;  // validated: held rows, no prefetch=smem, aligned rows
    int64_t at = 0;
    int i = 0;
    c += "  if (ry == 0) {\n";
    for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k) {
      if (w.op(k).is_output || w.op(k).access != Access::Col) continue;
      if (!(P.resident >> i++ & 1) || !w.vectorized(k)) continue;
      const int bytes = P.vec * dtype_size(w.dt(w.op(k).value));
      c += "#pragma unroll\n    for (int b = 0; b < BATCH; ++b) {\n      const int col0 = " + w.row_slot() + " * VEC;\n"
           "      cp_async<" + num(bytes) + ">(dsm + " + num(at) + "u + (unsigned)(b * TPR + tr) * " + num(bytes) + "u, " +
           w.ptr(k) + " + (b < BATCH - 1 || col0 < C ? col0 : 0));\n    }\n";
      w.resident[k] = num(at);
      at += int64_t{P.batch} * tpr * bytes;
    }
    // Rows of one block share the copies (made by its first row's threads).
    c += "  }\n  cp_async_commit();\n  cp_async_wait_all();\n" + std::string(rpb > 1 ? "  __syncthreads();\n" : "");
  }

  // Row tickets (plan.params.tickets): a block's first rows are blockIdx.x's; each later group
  // of RPB rows comes from a counter in scratch, taken one row ahead so the prefetch knows it.
  // Blocks on SMs that get more bandwidth take more rows, where a fixed stride left SMs idle
  // at the end. Thread 0 publishes the ticket in shared memory (two slots: one read, one
  // written), seen by the block after the reductions' barriers, so only where rows span warps
  // (TPR > 32). Where blocks take few rows (fewer than 6 each) the counter's start-up costs
  // more than balance gains, so those launches keep the fixed stride, passed on the same way
  // (decided at run time: one kernel serves every size). The last block to finish zeroes the
  // counters for the next launch.
  void open_row_loop() {
    tickets = P.tickets && !prefetch->empty();  // validated: TPR > 32
    next_rows = "row + " + nblk + " * RPB";
    if (tickets) {
      out.scratch_init = {0u, 0u};  // next ticket, blocks finished
      c += "  unsigned* const tickets = (unsigned*)p.scratch;\n"
           "  const bool by_ticket = R >= 6 * (i64)gridDim.x * RPB;\n"
           "  __shared__ i64 next_rb_[2];\n"
           "  if (threadIdx.x == 0)\n"
           "    next_rb_[0] = by_ticket ? ((i64)gridDim.x + atomicAdd(tickets, 1u)) * RPB : ((i64)blockIdx.x + gridDim.x) * RPB;\n"
           "  __syncthreads();\n"
           "  int slot = 0;\n  for (i64 rb = (i64)blockIdx.x * RPB, nrb; rb < R; rb = nrb, slot ^= 1) {\n"
           "    nrb = next_rb_[slot];\n";
      next_rows = "nrb + ry";
    } else {
      c += "  for (i64 rb = " + blk + " * RPB; rb < R; rb += " + nblk + " * RPB" +
           (cluster > 1 ? ", cpar ^= 1u, cph ^= 1u - cpar" : "") + ") {\n";
    }
    c += "    const i64 row = rb + ry;\n    const bool row_ok = row < R;\n    const i64 rowc = row_ok ? row : R - 1;\n    (void)rowc;\n";
    copy_staged_tiles();
    if (!prefetch->empty() && !P.prefetch) c += prefetch->issue("row", 2);
    c += prefetch->take_row_values(2);
    // Persistent: each row-varying operand's row address once per row (phase-shifted: the row's
    // aligned start, `ph` elements before it); the batches are then immediate offsets from it.
    if (phased) c += "    const int ph = " + phase_of("rowc") + ", nv = (C + ph + VEC - 1) / VEC;\n";
    if (persistent)
      for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k)
        if (w.op(k).access == Access::Full) {
          const std::string t = storage_type(w.dt(w.op(k).value));
          c += "    " + std::string(w.op(k).is_output ? "" : "const ") + t + "* __restrict__ R" + num(k) + " = " +
               w.ptr(k) + " + " + w.offset(k, "rowc", "0") + (phased ? " - ph" : "") + ";\n";
          w.row_based.insert(k);
          // Shift plans: each Full input's phase in this row, in elements past an aligned vector.
          if (w.inner_shifted(k))
            c += "    const unsigned sh" + num(k) + " = (unsigned)((unsigned long long)R" + num(k) + " / " +
                 num(dtype_size(w.dt(w.op(k).value))) + "u) & (VEC - 1);\n";
        }
    // ... and whether this row's first and last vectors stay inside the tensor (see
    // Writer::inner_shift_by_element).
    if (persistent && P.shift) c += "    const bool redge = rowc == 0 || rowc == R - 1;\n";
  }

  void store_row_outputs(int stage) {
    for (int k : outs) {
      int v = w.op(k).value;
      if (!sp.row_level[v] || sp.stage[v] != stage) continue;
      std::string val = row_em->value(v, c, I(2));
      c += "    if (tr == 0 && row_ok" + std::string(w.op(k).access == Access::Scalar ? " && row == 0" : "") +
           (split > 1 ? " && crank == 0u" : "") + ") " +
           w.ptr(k) + "[" + w.offset(k, "row", "0") + "] = " + store_convert(w.dt(v), val) + ";\n";
    }
  }

  // Persistent rows: the arrays that hold values across passes (16-bit values as pairs).
  void declare_held() {
    if (!persistent) return;
    for (int v : sp.materialized) {
      if (int u = narrow_source(w.f, v); u >= 0 && P.vec % 2 == 0) narrow[v] = u;
      c += narrow.count(v) ? "    unsigned m" + num(v) + "[BATCH][VEC / 2];\n"
                           : "    " + std::string(compute_type(w.dt(v))) + " m" + num(v) + "[BATCH][VEC];\n";
    }
  }
  bool held(int v, int q) const { return persistent && mat.count(v) && sp.stage[v] < q; }
  // The held value whose bits are computed value v's (v the narrow source of a value held in
  // pass q), or -1: v's bits are then read there, not recomputed from inputs this pass has not
  // loaded.
  int held_as_bits(int v, int q) const {
    if (w.is_input(v)) return -1;
    for (const auto& [m, u] : narrow)
      if (u == v && held(m, q)) return m;
    return -1;
  }
  std::string held_bits(int v) const { return "half_of(m" + num(v) + "[b][j / 2], j & 1)"; }
  std::string held_value(int v) const {
    if (!narrow.count(v)) return "m" + num(v) + "[b][j]";
    const DType t = w.dt(narrow.at(v));
    return t == DType::BF16 ? "held_bf16_to_f(" + held_bits(v) + ")" : load_convert(t, held_bits(v));
  }

  // Pass q: the element loop over the row (per batch, or streamed), then its reductions' results.
  void element_pass(int q) {
    const Pass pass = pass_at(w, q);
    if (pass.targets.empty()) return;
    // Row-level values this pass reads are computed once per row, before the element loop.
    std::set<int> row_needed;
    const std::vector<int> ins = w.element_inputs(pass.targets, [&](int v) {
      if (held(v, q)) return true;
      if (sp.row_level[v]) {
        row_needed.insert(v);
        return true;
      }
      return false;
    });
    for (int v : row_needed) row_em->value(v, c, I(2));
    for (int i : pass.steps)
      c += sp.steps[i].welford ? "    Welford " + acc[i] + " = {0.f, 0.f, 0.f};\n"
                               : "    " + std::string(compute_type(acc_t[i])) + " " + acc[i] + " = " +
                                     red_identity(sp.steps[i].kind, acc_t[i]) + ";\n";
    open_batch_loop(q);
    element_body(q, pass, ins);
    c += "      }\n    }\n";
    if (q == pf_pass && tickets)
      c += "    if (threadIdx.x == 0)\n      next_rb_[slot ^ 1] = by_ticket ? ((i64)gridDim.x + atomicAdd(tickets, 1u)) * RPB : nrb + (i64)gridDim.x * RPB;\n";
    if (q == pf_pass && !prefetch->empty() && P.prefetch) c += prefetch->issue(next_rows, 2);
    row_results(pass.steps);
    store_row_outputs(q + 1);
  }

  // Persistent: no branch around a batch. Lanes past the row load in bounds (row R-1, col 0)
  // and only their reductions and stores are masked, so the compiler may issue the loads of
  // every batch before the first use. Every batch but the last lies inside the row (the
  // scheduler's batch is ceil(vectors / TPR); launch_grid checks it): their columns are
  // constants apart, one address per row and immediate offsets.
  void open_batch_loop(int q) {
    const std::string span = split > 1 ? "RT" : "TPR", lane = split > 1 ? "rt" : "tr";  // looped rows
    if (q == pf_pass && smem_pf) c += ring->active() ? ring->wait_for_row() : "    cp_async_wait_all();\n";
    if (phased) {
      c += "#pragma unroll\n    for (int b = 0; b < BATCH; ++b) {\n"
           "      const int vs = b * TPR + tr + 1, vi = (vs == nv ? 0 : vs) * VEC, col0 = vi - ph, colc = col0;\n"
           "      const bool ok = row_ok;\n"
           "      const unsigned ln = b < BATCH - 1 ? (1u << VEC) - 1 : ok ? row_lanes<VEC>(col0, C) : 0u;\n      {\n";
    } else if (persistent)
      c += "#pragma unroll\n    for (int b = 0; b < BATCH; ++b) {\n"
           "      const int col0 = " + w.row_slot() + " * VEC;  // < 2^31: BATCH * TPR * VEC is small\n"
           "      const bool in_row = b < BATCH - 1 || col0 < C;\n"
           "      const bool ok = row_ok && in_row;\n      const int colc = in_row ? col0 : 0;\n      {\n";
    else if (reversed_pass(q))  // (split rows: the block's vectors of every RT)
      c += "    for (i64 cb = (C - 1) / (" + span + " * VEC) * (" + span + " * VEC); cb >= 0; cb -= (i64)" + span + " * VEC) {\n"
           "      const i64 col0 = cb + (i64)" + lane + " * VEC;\n      const bool ok = row_ok && col0 < C;\n      if (ok) {\n";
    else
      c += "    for (i64 col0 = (i64)" + lane + " * VEC; col0 < C; col0 += (i64)" + span + " * VEC) {\n"
           "      const bool ok = row_ok;\n      if (ok) {\n";
  }

  // One vector of the row: its loads, the pair loop, the element loop (held values, reductions'
  // updates, element outputs) and the vector stores.
  void element_body(int q, const Pass& pass, const std::vector<int>& ins) {
    const std::string rowa = persistent ? "rowc" : "row", cola = persistent ? "colc" : "col0";
    const std::string if_ok = phased ? "if (b < BATCH - 1 ? ok : (ln >> j & 1)) " : persistent ? "if (ok) " : "";
    std::vector<int> loaded;
    if (ring->streams(q)) c += ring->wait_for_batch(q);
    for (int k : ins) {
      if (ring->streams(q, k))
        c += I(4) + "const " + w.in_vec_type(k) + " in" + num(k) + " = " + ring->read(q, k) + ";\n";
      else if (q == pf_pass && prefetch->has(k))
        c += I(4) + "const " + w.in_vec_type(k) + " in" + num(k) + " = " + prefetch->read(k) + ";\n";
      else
        loaded.push_back(k);
    }
    // The slots just read refill at once (their values are in registers): the copy's addresses
    // are then not live beside the batch's arithmetic (issued after it, W1 f16 H=65536 spilled).
    if (ring->streams(q)) c += ring->refill(q);
    w.vector_loads(loaded, 4, rowa, cola);
    w.store_decls(pass.elem_outs, 4);
    // Pairs of elements first (PairLoop): values native ops compute from 16-bit inputs and held
    // values.
    const size_t loop_at = c.size();
    PairLoop pl(w.f, I(4));
    ExprEmitter& pe = pl.pe;
    pe.set_raw_bits([&](int v) -> std::string {
      if (held(v, q)) return narrow.count(v) && narrow[v] == v ? "m" + num(v) + "[b][j2]" : std::string();
      if (const int m = held_as_bits(v, q); m >= 0) return "m" + num(m) + "[b][j2]";
      if (!w.is_input(v)) return "";
      const int k = w.operand_index.at(v);
      return w.in_pairs(k) && std::count(ins.begin(), ins.end(), k) ? w.vector_pair(k) : std::string();
    });
    // A where in pairs only under a condition of the whole row (a row's mask): both halves'.
    pe.set_pair_condition([&](int v, std::string&, const std::string&) -> std::pair<std::string, std::string> {
      if (!sp.row_level[v] || (!row_names.count(v) && !w.is_input(v))) return {};
      const std::string e = row_em->value(v, c, I(5));  // a name, or an input's load: no code
      return {e, e};
    });
    c += "#pragma unroll\n        for (int j = 0; j < VEC; ++j) {\n          const i64 col = " + cola + " + j;\n          (void)col;\n";
    w.scalar_loads(ins, 5, rowa, "col", false);
    ExprEmitter em(w.f, [&](int v) -> std::string {
      if (held(v, q)) return held_value(v);
      if (sp.row_level[v] && row_names.count(v)) return row_names[v];
      if (sp.row_level[v]) return row_em->value(v, c, I(5));  // already emitted above: returns its name
      if (w.is_input(v)) return w.elem_input(v, true);
      return "";
    });
    em.set_narrow_results(w.narrow_results());
    em.set_raw_bits([&](int v) {
      if (held(v, q)) return narrow.count(v) && narrow[v] == v ? held_bits(v) : std::string();
      if (const int m = held_as_bits(v, q); m >= 0) return held_bits(m);
      if (sp.row_level[v]) return std::string();  // loaded once per row as a float, not as bits here
      if (w.is_input(v))  // not where this pass does not load it (a held value's inputs)
        return std::count(ins.begin(), ins.end(), w.operand_index.at(v)) ? w.elem_raw(v, true) : std::string();
      const std::string pw = pl.word(v);
      return pw.empty() ? pw : "half_of(" + pw + ", j & 1)";
    });
    hold_values(pass.materialized, em, pe, pl.body);
    accumulate(pass.steps, em, if_ok);
    for (int k : pass.elem_outs) {
      std::string val = w.stored(em, k, I(5));
      if (persistent && !w.vectorized(k)) c += I(5) + "if (ok)\n";
      w.store_elem(k, val, persistent && !w.vectorized(k) ? 6 : 5, rowa, "col", true);
    }
    c += "        }\n";
    c.insert(loop_at, pl.loop());
    if (persistent && !pass.elem_outs.empty()) c += I(4) + "if (ok) {\n";
    w.store_vectors(pass.elem_outs, persistent ? 5 : 4, rowa, cola);
    if (persistent && !pass.elem_outs.empty()) c += I(4) + "}\n";
  }

  // Values later passes read, into the held arrays. The bits of a 16-bit one: a whole pair
  // where the pair loop has them (an input's as loaded, or native ops' results), else the exact
  // conversion, packed element by element.
  void hold_values(const std::vector<int>& values, ExprEmitter& em, ExprEmitter& pe, std::string& pairs) {
    for (int v : values) {
      if (!narrow.count(v)) {
        c += I(5) + "m" + num(v) + "[b][j] = " + em.value(v, c, I(5)) + ";\n";
        continue;
      }
      const int u = narrow[v];
      if (std::string e = pe.raw_bits(u, pairs, I(5)); !e.empty()) {
        pairs += I(5) + "m" + num(v) + "[b][j2] = " + e + ";\n";
        continue;
      }
      std::string bits = em.raw_bits(u, c, I(5));
      if (bits.empty()) bits = store_convert(w.dt(u), em.value(u, c, I(5)));
      const std::string m = "m" + num(v) + "[b][j / 2]";
      c += I(5) + m + " = (j & 1) ? (" + m + " | ((unsigned)" + bits + " << 16)) : (unsigned)" + bits + ";\n";
    }
  }

  // The reductions' per-element updates (masked where the lane is outside the row).
  void accumulate(const std::vector<int>& steps, ExprEmitter& em, const std::string& if_ok) {
    for (int i : steps) {
      const auto& st = sp.steps[i];
      std::string x = em.value(st.input, c, I(5));
      if (st.welford) {
        c += I(5) + if_ok + "welford_add(" + acc[i] + ", (float)(" + x + "));\n";
      } else if (st.var_step) {
        std::string d = "d" + num(i);
        c += I(5) + "const float " + d + " = " + x + " - rm" + num(st.node) + ";\n";
        c += I(5) + if_ok + acc[i] + " += " + d + " * " + d + ";\n";
      } else {
        c += I(5) + if_ok + acc[i] + " = " +
             combine(st.kind, acc[i], std::string("(") + compute_type(acc_t[i]) + ")(" + x + ")") + ";\n";
      }
    }
  }

  // A reduction's result as a row-level value (f16/bf16 results rounded once).
  void declare(int v, const std::string& expr) {
    std::string name = "r" + num(v);
    DType t = w.dt(v);
    c += "    const " + std::string(compute_type(t)) + " " + name + " = " + rounded(t, expr) + ";\n";
    row_names[v] = name;
  }

  // The pass's reductions combined across the row (and cluster), as row-level values.
  void row_results(const std::vector<int>& steps) {
    for (int i : steps) {
      const auto& st = sp.steps[i];
      const Node& n = w.f.nodes()[st.node];
      c += combine_across_row(st, i, acc[i], acc_t[i], tpr);
      const std::string rv = "rv" + num(st.node), rm = "rm" + num(st.node);
      const bool blockwise = block_stats && st.kind == Op::VarMean && !st.welford;
      if ((cluster > 1 || split > 1) && !blockwise) c += combine_across_blocks(st, i, acc[i], acc_t[i]);
      const std::string var_divisor =
          "(float)(C - " + num(n.attrs.correction) + " > 0 ? C - " + num(n.attrs.correction) + " : 0)";
      if (st.welford) {
        c += "    const float " + rv + " = " + acc[i] + ".m2 / " + var_divisor + ";\n    const float " + rm + " = " + acc[i] +
             ".mean;\n";
        declare(n.out[0], rv);
        declare(n.out[1], rm);
      } else if (blockwise && !st.var_step) {
        c += "    const float " + rm + " = nloc > 0.f ? " + acc[i] + " / nloc : 0.f;  // this block's columns\n";
      } else if (blockwise) {
        const std::string wv = "cw" + num(i);
        ReductionStep merged = st;
        merged.welford = true;
        c += "    Welford " + wv + " = {nloc, " + rm + ", " + acc[i] + "};\n";
        c += combine_across_blocks(merged, i, wv, acc_t[i]);
        c += "    const float " + rv + " = " + wv + ".m2 / " + var_divisor + ";\n";
        declare(n.out[0], rv);
        declare(n.out[1], wv + ".mean");
      } else if (st.kind == Op::VarMean && !st.var_step) {
        c += "    const float " + rm + " = " + acc[i] + " / (float)C;\n";
      } else if (st.var_step) {
        c += "    const float " + rv + " = " + acc[i] + " / " + var_divisor + ";\n";
        declare(n.out[0], rv);
        declare(n.out[1], rm);
      } else if (st.kind == Op::Mean) {
        declare(n.out[0], acc[i] + " / (" + compute_type(acc_t[i]) + ")C");
      } else {
        declare(n.out[0], acc[i]);
      }
    }
  }

  std::string combine_across_blocks(const ReductionStep& st, int i, const std::string& a, DType t) {
    return split > 1 ? combine_across_grid(st, i, exchanges++, a, t) : combine_across_cluster(st, i, a, t);
  }

  void close_kernel() {
    store_staged_tiles();
    c += "  }\n";
    if (ring->active()) c += "  cp_async_wait_all();  // the next row's weights, of no row: drained before exit\n";
    // No block leaves while another may still push into its shared memory.
    if (cluster > 1) c += "  cluster_sync();\n";
    // Split rows: the row's last block to leave (every block of it past its waits) zeroes the
    // row's counter, the launch's last block the tickets, so launches need no memset.
    if (split > 1) {
      out.scratch_per_cell = 16 * exchanges;
      c += "  if (threadIdx.x == 0) {\n    if (blk < R && atomicAdd(gcount, 1u) == " + num(exchanges + 1) +
           "u * SPLIT - 1u) *gcount = 0u;\n    if (atomicAdd(gctr + 1, 1u) == gridDim.x - 1u) {\n      gctr[0] = 0u;\n"
           "      gctr[1] = 0u;\n    }\n  }\n";
    }
    if (tickets)
      c += "  if (by_ticket && threadIdx.x == 0 && atomicAdd(tickets + 1, 1u) == gridDim.x - 1) {\n"
           "    tickets[0] = 0u;\n    tickets[1] = 0u;\n  }\n";
    c += "}\n";
  }
};

}  // namespace

// Inner shift plans (KernelParams::shift): the V elements of type E whose first byte lies
// `bytes` past the aligned vector lo, from lo and the next aligned vector hi: words move by
// selects in log2(words) steps (bytes / 4 is the same for a whole row), bytes within words by
// funnel shifts. bytes 0 gives lo.
std::string shift_pair_helper() {
  return "template <class E, int V> __device__ __forceinline__ Vec<E, V> shift_pair(const Vec<E, V>& lo, const Vec<E, V>& hi,\n"
         "                                                                 unsigned bytes) {\n"
         "  constexpr int W = sizeof(Vec<E, V>) / 4;  // words per vector\n"
         "  union U { Vec<E, V> v; unsigned w[W]; };\n"
         "  U a, b, o;\n  a.v = lo;\n  b.v = hi;\n  unsigned w[2 * W];\n"
         "#pragma unroll\n  for (int i = 0; i < W; ++i) {\n    w[i] = a.w[i];\n    w[W + i] = b.w[i];\n  }\n"
         "  const unsigned ws = bytes / 4;\n"
         "#pragma unroll\n  for (int s = W / 2; s >= 1; s /= 2)\n"
         "#pragma unroll\n    for (int i = 0; i + s < 2 * W; ++i) w[i] = (ws & s) ? w[i + s] : w[i];\n"
         "#pragma unroll\n  for (int i = 0; i < W; ++i) o.w[i] = __funnelshift_r(w[i], w[i + 1], (bytes % 4) * 8);\n"
         "  return o.v;\n}\n";
}

void write_inner(Writer& w, KernelSource& out) { InnerKernel(w, out).write(); }

}  // namespace solder::codegen_detail
