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
// columns in registers, so every pass after the first reads registers; with batch 0 (rows too
// long to hold) each pass reads the rows again from global memory (L2). On Hopper a tile's rows
// may split over the blocks of a cluster (`cluster`), which exchange their totals through
// distributed shared memory; outputs whose kept columns are not unit-stride go through
// shared-memory tiles (`staged`); held rows may live in dynamic shared memory instead of
// registers (`smem_rows`: fewer registers per thread, more threads or blocks per SM). The shapes
// are ranked by TileModel below.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "schedule/outer_view.h"
#include "schedule/registry.h"
#include "schedule/stages.h"

namespace solder {

namespace {

// Registers a thread may spend on held rows and its columns' statistics under the 64-register
// cap of 1024 resident threads (the rest: addresses and the pass's math), and under 128 (512
// resident). The statistics take a register per column and plane (Welford: mean and M2), so
// 8 columns of a softmax (max and sum) leave fewer for rows than 4 do.
constexpr int kHeldRegs64 = 40, kHeldRegs128 = 88;
// Rows a thread holds at most: each pass is unrolled over them.
constexpr int kMaxBatch = 16;
// Rows in flight per thread of a re-reading plan (its first candidate's unroll).
constexpr int kRereadUnroll = 4;
// Clusters: up to 8 blocks portably; 16 with the non-portable cluster size (Hopper).
constexpr int kPortableCluster = 8, kMaxCluster = 16;
// Bytes of the memory system's unit (a 32-byte sector): stores of a narrower run write partial
// sectors, which cost about a whole one each.
constexpr double kSectorBytes = 32;
// A warp's contiguous segment of a row costs as if it were this many bytes longer: narrow
// segments of neighbouring tiles meet in L2, so a 16-byte segment reads at about 80 % of a wide
// one, not at half. This and the constants below were fitted to pinned-plan grids on the H100
// (perf-notes, 2026-11-26 19:05; bench/experiments/outer_norm_grid*.txt).
constexpr double kSegmentOverhead = 4;
// Welford steps (var_mean) merge (count, mean, M2) triples with a division at every level of
// the combine, across the block's rows and then across a cluster's blocks: the merges sit on the
// critical path of a block that holds its rows. Their cost relative to the held data, per row
// per thread and per cluster doubling (fitted to a transposed f16 layer norm's shapes).
constexpr double kWelfordPerBatch = 1.5, kWelfordPerClusterDoubling = 0.2;
// Clusters over the portable size take whole GPCs: about 1.45x the time of the best portable
// shape in both cases measured.
constexpr double kNonPortableCluster = 1.45;
// A staged output's efficiency: whole 16-byte vectors, but a shared-memory round trip and the
// tile's barriers.
constexpr double kStagedStoreEff = 0.8;
// Bytes of loads an SM keeps in flight to pull its share of the bandwidth (Little's law: about
// 23 KB per microsecond of loaded latency at 3 TB/s over 132 SMs, with latency to spare): held
// rows issue all their loads at once, re-read rows `unroll` vectors per thread.
constexpr double kBytesInFlight = 48 * 1024;
// A lone block on its SM (held rows, one block an SM) loads its rows, waits at its combine's
// barriers (a level per pass after the first) and stores them with nothing else running there:
// the SM's share of the bandwidth idles about this long per level, which a second resident
// block's traffic hides. Counted against the block's own transfer time where another block
// follows it on the SM (more blocks than a wave) or the combine has two levels (a max, then a
// sum of exponentials). Fitted on the H200 (seed 26 #009, an rms norm of a transposed f32
// 16384 x 3000: lone 1024-thread blocks 208 us, two 512-thread blocks an SM 140; perf-notes
// 2026-12-01 22:00); on the H100 the two-level programs ran 1.1-1.5x slower as lone blocks.
// Not for Welford combines: the transposed f16 layer norm (var_mean, 5120 x 6144) ran 11 %
// slower as two blocks an SM than as lone ones (unexplained; its merges sit on the critical path).
constexpr double kLoneBlockIdleUs = 1.25;
// L2 reads per DRAM read a re-reading pass costs when its rows stay in L2.
constexpr double kL2Reread = 0.4;
// Bytes an SM moves before its share of the bandwidth, not the latency, bounds its time: a
// problem of fewer bytes than this per SM gains nothing from more SMs (nor from a cluster's).
constexpr double kBytesPerSm = 64 * 1024;

// One tile shape: TX threads along the kept columns (VEC each), threads / TX along the rows,
// the rows split over `cluster` blocks, `batch` rows held per thread (0: re-read each pass).
struct TileShape {
  int tx = 1, threads = 256, cluster = 1, batch = 0;
  int resident = 1024;  // threads an SM keeps: 1024 (a 64-register cap) or 512 (128)
  int smem_rows = 0;    // of the held rows, those in dynamic shared memory (the first ones)
  int per_sm = 1;       // blocks an SM keeps: the register cap's, fewer where shared memory is short
  bool staged = false;
  double cost = 0;  // the model's time, in units of a perfect copy of the bytes moved
};

// The device model the shapes are ranked by (see candidates()).
struct TileModel {
  int64_t K = 0, RR = 0;
  int vec = 1, widest = 1, sms = 132, passes = 2, max_cluster = 1, welford_steps = 0;
  bool hopper = false, can_stage = false;
  bool smem_ok = false;                   // every Full input's vector is a cp.async size (4, 8, 16 bytes)
  int64_t smem_per_sm = 0, smem_optin = 0;
  double read_bytes = 0;                  // per element: the Full and General inputs (held alike: VEC elements a row)
  std::vector<int> general_ins;           // bytes of each General input (read element by element)
  int full_in_bytes = 0;                  // the same, as an integer
  std::vector<std::pair<int, bool>> outs;  // element outputs: (bytes, General)
  int64_t l2_bytes = 0;
  double sm_bytes_per_us = 25e3;  // an SM's share of the DRAM bandwidth
  double busy = 1;  // the SMs the problem's bytes keep bandwidth-bound (kBytesPerSm each)
  OuterNormBytes nb;

  int64_t tiles(int tx) const { return (K + int64_t{tx} * vec - 1) / (int64_t{tx} * vec); }
  // The efficiency of a warp's contiguous run of `bytes` in a row, read or stored (a run under a
  // sector writes part of it). A General output's element stores (runs along the rows) count
  // only their sectors.
  static double segment_eff(double bytes, bool store) {
    const double eff = bytes / (bytes + kSegmentOverhead);
    return store ? eff * std::min(1.0, bytes / kSectorBytes) : eff;
  }
  // The share of the device the blocks keep busy: whole waves of the blocks the SMs keep at
  // once (`per_sm` each; a cluster's blocks start together, so whole clusters), a partial last
  // wave idles the rest; fewer blocks than SMs, their share of the SMs the bytes need.
  double util(int64_t blocks, int cluster, int per_sm) const {
    if (blocks < sms) return std::min(1.0, static_cast<double>(blocks) / busy);
    const int64_t slots = std::max<int64_t>(cluster, int64_t{sms} * per_sm / cluster * cluster);
    const int64_t waves = (blocks + slots - 1) / slots;
    return static_cast<double>(blocks) / static_cast<double>(waves * slots);
  }
  KernelParams params(const TileShape& t) const {
    KernelParams p;
    p.vec = vec;
    p.threads = t.threads;
    p.rows_per_block = t.threads / t.tx;
    p.batch = t.batch;
    p.cluster = t.cluster;
    p.staged = t.staged;
    p.unroll = t.batch ? 1 : kRereadUnroll;
    p.min_blocks = std::max(1, t.resident / t.threads);
    p.smem_rows = t.smem_rows;
    p.dyn_smem = static_cast<int>(outer_norm_row_smem(p, full_in_bytes));
    return p;
  }
  bool smem_fits(const TileShape& t) const { return outer_norm_smem(params(t), nb).total() <= kOuterNormStaticSmem; }
  // Blocks an SM keeps: the register cap's (resident / threads), fewer where a block's shared
  // memory (static, the held rows', and the 1 KB the device reserves per block) leaves fewer room.
  int blocks_per_sm(const TileShape& t) const {
    const KernelParams p = params(t);
    const int64_t block = outer_norm_smem(p, nb).total() + p.dyn_smem;
    if (block > smem_optin) return 0;
    return static_cast<int>(std::min<int64_t>(std::max(1, t.resident / t.threads), smem_per_sm / (block + 1024)));
  }
  // Staged outputs need whole 16-byte vectors per column in a tile's rows.
  bool stage_fits(const TileShape& t) const {
    const int ty = t.threads / t.tx;
    for (const auto& [bytes, general] : outs)
      if (general && (int64_t{ty} * bytes) % 16) return false;
    return true;
  }
  // The cost: bytes moved over their efficiency, over the busy share of the device, times the
  // Welford merges' share. Re-read rows read the inputs once per pass, from L2 after the first
  // where the running blocks' rows fit half of it. A General output stored element by element
  // writes (32 / TX) elements of a column per instruction; staged, whole 16-byte vectors.
  double cost(const TileShape& t) const {
    const double seg = double(t.tx) * vec * widest, eff = segment_eff(seg, false);
    const int64_t blocks = tiles(t.tx) * t.cluster;
    double mult = 1;
    if (t.batch == 0) {
      const int64_t ty = t.threads / t.tx, rows = (RR + t.cluster - 1) / t.cluster;
      const int64_t running = std::min<int64_t>(blocks, int64_t{sms} * t.per_sm);
      const double live = double(running) * double(std::max(rows, ty)) * t.tx * vec * read_bytes;
      mult = 1 + (passes - 1) * (live <= l2_bytes / 2.0 ? kL2Reread : 1.0);
    }
    // A General input's element loads: a warp's lanes of one column read TY = 32 / TX rows, a
    // contiguous run of (32 / TX) elements, whole sectors at 32 bytes or more (as the General
    // stores below).
    double c = (read_bytes - general_bytes()) / eff;
    for (int b : general_ins) c += b / std::min(1.0, 32.0 / t.tx * b / kSectorBytes);
    c *= mult;
    for (const auto& [bytes, general] : outs)
      c += bytes / (!general ? segment_eff(seg, true) : t.staged ? kStagedStoreEff : std::min(1.0, 32.0 / t.tx * bytes / kSectorBytes));
    const int64_t rows_per_thread = (RR + int64_t{t.cluster} * (t.threads / t.tx) - 1) / (int64_t{t.cluster} * (t.threads / t.tx));
    const double merges = welford_steps * (kWelfordPerBatch / double(std::max<int64_t>(1, rows_per_thread)) +
                                           kWelfordPerClusterDoubling * std::log2(double(t.cluster)));
    const double cluster = t.cluster > kPortableCluster ? kNonPortableCluster : 1.0;
    const int per_sm = t.per_sm;
    // Only thread rows that have a row load: over fewer rows than TY (a log_softmax over 3) the
    // rest of the block idles.
    const int64_t busy = int64_t{t.tx} * std::min<int64_t>(t.threads / t.tx, (RR + t.cluster - 1) / t.cluster);
    const double in_flight = double(per_sm) * double(busy) * (t.batch ? t.batch : kRereadUnroll) * vec * read_bytes;
    const double need = std::min(kBytesInFlight, read_bytes * double(K) * double(RR) / sms);  // a small problem has less
    const double latency = std::max(1.0, need / in_flight);
    return c * (1 + merges) * cluster * latency * lone_idle(t, blocks) / util(blocks, t.cluster, per_sm);
  }
  // The lone-block term (kLoneBlockIdleUs): 1 where the SM keeps other blocks or rows are re-read.
  double lone_idle(const TileShape& t, int64_t blocks) const {
    const bool followed = blocks > std::max<int64_t>(t.cluster, int64_t{sms} / t.cluster * t.cluster);
    if (t.batch == 0 || t.per_sm > 1 || welford_steps > 0 || !(followed || passes >= 3)) return 1.0;
    double bytes = read_bytes;
    for (const auto& [b, general] : outs) bytes += b;
    const double rows = static_cast<double>((RR + t.cluster - 1) / t.cluster);
    const double cols = static_cast<double>(std::min<int64_t>(K, int64_t{t.tx} * vec));
    const double block_us = rows * cols * bytes / sm_bytes_per_us;
    return 1 + kLoneBlockIdleUs * (passes - 1) / std::max(block_us, 1e-3);
  }
  // Ties (within 3 %) go to rows held in registers (the forms measured most), more resident
  // threads, portable clusters, wider tiles, smaller clusters, then fewer threads.
  static bool better(const TileShape& a, const TileShape& b) {
    if (a.cost < b.cost * 0.97) return true;
    if (b.cost < a.cost * 0.97) return false;
    auto key = [](const TileShape& t) {
      return std::make_tuple(t.smem_rows > 0, -t.resident, t.cluster > kPortableCluster, -t.tx, t.cluster, t.threads);
    };
    return key(a) < key(b);
  }
  double general_bytes() const {
    double b = 0;
    for (int g : general_ins) b += g;
    return b;
  }
  // A held row's registers: the Full inputs' vectors, and a register per element of a General
  // input (its element loads land in a register each; all of a row's are in flight at once).
  int held_regs() const {
    int regs = static_cast<int>((vec * (read_bytes - general_bytes()) + 3) / 4);
    for (int b : general_ins) regs += vec * ((b + 3) / 4);
    return std::max(1, regs);
  }
  int stats_regs() const { return vec * std::max(0, nb.exchange_per_column / 4 - welford_steps); }
  int tx_line() const {
    const int64_t vectors = (K + vec - 1) / vec;
    return static_cast<int>(std::clamp<int64_t>(std::min<int64_t>(128 / (vec * widest), pow2ceil(vectors)), 1, 32));
  }
  // Each block of a cluster has rows, and a cluster's tile is whole 16-byte exchange chunks.
  bool cluster_ok(int tx, int ty, int cl) const {
    return cl == 1 || (hopper && cl <= max_cluster && (cl - 1) * int64_t{ty} < RR && (tx * vec) % 4 == 0);
  }

  std::vector<TileShape> held() const {
    std::vector<TileShape> out;
    for (int tx = tx_line(); tx >= 1; tx /= 2)
      for (int threads : {256, 512, 1024})
        for (int cl = 1; cl <= kMaxCluster; cl *= 2) {
          const int ty = threads / tx;
          if (!cluster_ok(tx, ty, cl)) continue;
          const int64_t batch = (RR + int64_t{cl} * ty - 1) / (int64_t{cl} * ty);
          if (batch > kMaxBatch) continue;
          for (int resident : {1024, 512}) {
            const int cap = resident == 1024 ? kHeldRegs64 : kHeldRegs128;
            if (threads > resident || stats_regs() > cap) continue;
            // Rows the registers hold beside the statistics; the rest, or all, in shared memory.
            const int fit = (cap - stats_regs()) / held_regs();
            TileShape t{.tx = tx, .threads = threads, .cluster = cl, .batch = static_cast<int>(batch), .resident = resident};
            if (batch <= fit && finish(t)) out.push_back(t);
            if (!smem_ok) continue;
            for (int sr : {static_cast<int>(batch), static_cast<int>(batch) - fit}) {
              if (sr <= 0 || sr > batch || (sr < batch && batch <= fit)) continue;
              TileShape u = t;
              u.smem_rows = sr;
              if (finish(u)) out.push_back(u);
              if (fit <= 0) break;
            }
          }
        }
    return out;
  }
  std::vector<TileShape> reread() const {
    std::vector<TileShape> out;
    for (int tx = tx_line(); tx >= 1; tx /= 2)
      for (int cl = 1; cl <= kMaxCluster; cl *= 2) {
        // One block per SM must pull the bandwidth alone where the blocks are fewer than SMs.
        const int threads = tiles(tx) * cl < sms ? 1024 : 256;
        if (!cluster_ok(tx, threads / tx, cl)) continue;
        TileShape t{.tx = tx, .threads = threads, .cluster = cl, .batch = 0, .resident = 1024};
        if (finish(t)) out.push_back(t);
      }
    return out;
  }
  // Staging where it applies and fits; the cost. False where the shape's shared memory does not fit.
  // Staging only where element stores waste sectors: a warp's lanes walk TY = 32 / TX rows of
  // TX columns, so each column's run is (32 / TX) elements; at 32 bytes or more the stores are
  // whole sectors already, and the tiles' barriers only cost (measured: perf-notes 2026-11-26).
  bool stores_waste_sectors(const TileShape& t) const {
    for (const auto& [bytes, general] : outs)
      if (general && 32.0 / t.tx * bytes < kSectorBytes) return true;
    return false;
  }
  bool finish(TileShape& t) const {
    t.staged = can_stage && stores_waste_sectors(t) && stage_fits(t);
    if (t.staged && !smem_fits(t)) t.staged = false;
    if (!smem_fits(t)) return false;
    t.per_sm = blocks_per_sm(t);
    if (t.per_sm < 1) return false;
    t.cost = cost(t);
    return true;
  }
};

class OuterNormScheduler final : public Scheduler {
 public:
  const char* name() const override { return "outer_norm"; }
  // Held rows' first plans sit at a register cap the model does not predict well: ptxas spills
  // 19 of 29 of them (RegisterModel.OuterNormFirstPlansAgainstPtxas), at 0.5-1.8 s a compile.
  int compiles_at_once() const override { return 4; }

  std::optional<std::string> cannot_schedule(const ScheduleContext& cx) const override {
    int ki = 0;
    int64_t hk = 1;
    if (auto why = outer_inputs_problem(cx, ki, hk, true)) return why;
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

  std::optional<std::string> defers(const ScheduleContext& cx) const override {
    int64_t hk = 1;
    const int ki = kept_split(cx, hk);
    // An operand in the inner layout: an element output General here (the norm of a transposed
    // input into a contiguous output), or a General input (unit-stride along the reduced rows
    // only: the residual beside a transposed x).
    bool inner_layout = false;
    int64_t general_sectors = 0;  // bytes of the sectors inner's element reads of them move
    std::string general;
    for (size_t k = 0; k < cx.shape.operands.size(); ++k) {
      const OperandView v = view_of(cx, k, ki);
      const bool input = static_cast<int>(k) < cx.shape.num_inputs, general_input = input && general_row_input(v);
      inner_layout |= input ? general_input : v.reduced.varies && v.inner.varies && !unit_linear(v.inner);
      if (general_input) {
        general_sectors += cx.facts.R * cx.facts.C * 32;
        general += (general.empty() ? "" : ", ") + cx.fusion.value(cx.shape.operands[k]).name;
      }
    }
    // General inputs whose element reads through inner (a 32-byte sector an element) move at
    // most L2's bytes: a size where latency, not those sectors, sets inner's time (H200, 16
    // norms of x + r of 8 seeds, perf-notes 2026-12-02: inner ran faster up to 33 MB of sectors,
    // seed 23 #060's f32 16384 x 64 9.3 us against 15.0 here; outer_norm from 164 MB, seed 17
    // #031's f16 1000 x 5140 34 against 42, up to 2.3x on larger ones).
    if (general_sectors > 0 && general_sectors <= cx.device.l2_bytes)
      return "input " + general + ": unit-stride along the reduced rows only, its element reads " +
             std::to_string(general_sectors) + " bytes of sectors, within L2's (inner)";
    // Where the inner scheduler's first plan stages the transposed operands instead (rows short
    // enough for a tile of rows, whole sectors per column, in shared memory), a block there
    // holds whole rows and reads and stores them as vectors, where kept tiles here read or store
    // the other layout's operand element by element or staged (seed 12 #057, #009 and #002 ran
    // 1.1-2.4x faster so; seed 6 #056, #045, #084; perf-notes 2026-11-27). Where inner cannot
    // stage them (rows too long for a tile: seed 7 #068's 16384; seed 27 #071's 12288 bf16 at
    // 512 threads a row) it would read the transposed one element by element, a sector each.
    const std::vector<KernelPlan> inner = inner_layout ? inner_scheduler().candidates(cx) : std::vector<KernelPlan>{};
    if (!inner.empty())
      for (const OperandPlan& o : inner.front().operands)
        if (o.access == Access::Staged)
          return "the inner scheduler's first plan stages " + cx.fusion.value(o.value).name + " through shared memory (inner)";
    return std::nullopt;
  }

  // Plans, best first. The model ranks tile shapes (TileModel::cost): held rows (read once) or
  // re-read rows, 128-byte lines of the widest operand per row where the columns allow (a
  // narrower segment wastes its sectors), the reduced rows split over a cluster's blocks where
  // one block cannot hold them or the tiles leave SMs idle (Hopper), staged outputs where an
  // output's kept columns are not unit-stride. Then the retries after spills: the other held
  // shapes, re-read rows with fewer rows in flight, narrower vectors down to one element
  // (always compiles).
  std::vector<KernelPlan> candidates(const ScheduleContext& cx) const override {
    const LaunchFacts& facts = cx.facts;
    KernelPlan plan = base_plan(cx.fusion, cx.segment, cx.segment_index, cx.shape, facts);
    plan.shape.category = KernelCategory::Outer;
    // solder_<red|norm>_<ops>: solder_outer_norm_<ops>.
    const size_t ops = plan.name.find('_', plan.name.find('_') + 1);
    plan.name = "solder_outer_norm" + plan.name.substr(ops);
    int64_t hk = 1;
    bool early = false;
    const int ki = kept_split(cx, hk, &early);
    plan.params.kept_run = early;
    const StagePlan sp = plan_stages(cx.fusion, cx.segment, cx.shape, false, false);
    TileModel m;
    m.K = facts.R;
    m.RR = facts.C;
    m.sms = cx.device.sm_count;
    m.hopper = cx.device.cc_major >= 9;
    m.max_cluster = std::min(kMaxCluster, cx.device.max_cluster);
    m.l2_bytes = cx.device.l2_bytes;
    m.sm_bytes_per_us = cx.device.dram_peak_gbs() * 1e3 / cx.device.sm_count;
    m.smem_per_sm = cx.device.smem_per_sm;
    m.smem_optin = cx.device.smem_per_block_optin;
    m.passes = sp.max_level + 1;
    for (const ReductionStep& st : sp.steps) {
      const int b = accumulator_bytes(cx.fusion.value(cx.fusion.nodes()[st.node].out[0]).dtype), planes = st.welford ? 3 : 1;
      m.nb.planes = std::max(m.nb.planes, planes);
      m.nb.plane_bytes = std::max(m.nb.plane_bytes, b);
      m.nb.exchange_per_column += planes * b;
      ++m.nb.steps;
      m.welford_steps += st.welford ? 1 : 0;
    }
    // Access classes of the transposed view. An operand whose kept columns are not unit-stride
    // (the output of a norm over a transposed input) is General: staged through shared memory
    // where its reduced rows are unit-stride, else one element at a time.
    std::vector<OperandView> views;
    std::vector<char> vectorized;
    bool stage_all = true, any_general = false;
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
      const int bytes = dtype_size(facts.operands[k].dtype);
      if (a == Access::Full && !plan.operands[k].is_output) m.read_bytes += bytes, m.full_in_bytes += bytes;
      // General inputs (outer_inputs_problem: reduced rows unit-stride): element loads, held as
      // VEC elements a row like a Full input's vector; never in shared memory (no cp.async of
      // single elements).
      if (a == Access::General && !plan.operands[k].is_output) m.read_bytes += bytes, m.general_ins.push_back(bytes);
      if (plan.operands[k].is_output && (a == Access::Full || a == Access::General)) {
        m.outs.emplace_back(bytes, a == Access::General);
        if (a == Access::General) {
          any_general = true;
          stage_all &= unit_linear(v.reduced);
          m.nb.staged_elem_bytes += bytes;
        }
      }
    }
    m.can_stage = any_general && stage_all;
    if (!m.can_stage) m.nb.staged_elem_bytes = 0;
    double bytes = m.read_bytes;
    for (const auto& [b, general] : m.outs) bytes += b;
    m.busy = std::clamp(bytes * static_cast<double>(m.K) * static_cast<double>(m.RR) / kBytesPerSm, 1.0, double(m.sms));
    m.vec = outer_vec(cx, views, vectorized, hk);
    m.smem_ok = (m.hopper || cx.device.cc_major >= 8) && m.general_ins.empty();  // cp.async: sm_80 and later
    for (size_t k = 0; k < views.size(); ++k) {
      if (vectorized[k]) m.widest = std::max(m.widest, dtype_size(facts.operands[k].dtype));
      const int vb = m.vec * dtype_size(facts.operands[k].dtype);
      if (vectorized[k] && !plan.operands[k].is_output && vb != 4 && vb != 8 && vb != 16) m.smem_ok = false;
    }

    std::vector<TileShape> held = m.held(), reread = m.reread();
    auto by_cost = [](const TileShape& a, const TileShape& b) { return TileModel::better(a, b); };
    std::stable_sort(held.begin(), held.end(), by_cost);
    std::stable_sort(reread.begin(), reread.end(), by_cost);
    std::vector<KernelPlan> out;
    auto add = [&](const KernelParams& p) {
      plan.params = p;
      out.push_back(plan);
    };
    // The best held shape; as the retries after spills, the same tile under the 128-register
    // cap (512 threads resident) where its block allows, else the best shape under that cap,
    // then the next best shape. Unless re-read rows cost less.
    const bool held_first = !held.empty() && (reread.empty() || !TileModel::better(reread.front(), held.front()));
    if (held_first) {
      const TileShape& best = held.front();
      std::vector<const TileShape*> picks = {&best};
      auto same_tile = [&](const TileShape& t) { return t.tx == best.tx && t.threads == best.threads && t.cluster == best.cluster; };
      // Registers that spill: first the best-ranked shape with all its rows in shared memory
      // (no held registers for ptxas to overrun; a partial share keeps the spilled prediction),
      // then the same tile so (the held registers freed, the block unchanged).
      if (best.smem_rows == 0) {
        auto all_smem = [&](bool same) {
          for (const TileShape& t : held)
            if (t.smem_rows == t.batch && (!same || (same_tile(t) && t.resident == best.resident))) return &t;
          return static_cast<const TileShape*>(nullptr);
        };
        for (const TileShape* t : {all_smem(false), all_smem(true)})
          if (t && std::find(picks.begin(), picks.end(), t) == picks.end()) picks.push_back(t);
      }
      const TileShape* roomier = nullptr;
      for (const TileShape& t : held)
        if (t.resident == 512 && best.resident == 1024 && (!roomier || (same_tile(t) && !same_tile(*roomier)))) roomier = &t;
      if (roomier && std::find(picks.begin(), picks.end(), roomier) == picks.end()) picks.push_back(roomier);
      for (const TileShape& t : held)
        if (std::find(picks.begin(), picks.end(), &t) == picks.end() && !same_tile(t)) {
          picks.push_back(&t);
          break;
        }
      for (const TileShape* t : picks) add(m.params(*t));
    }
    // Re-read rows: the best shape with 4, 2, 1 rows in flight; then narrower vectors.
    if (!reread.empty()) {
      KernelParams p = m.params(reread.front());
      const int mb = p.min_blocks;
      add(p);
      p.unroll = 2;
      p.min_blocks = std::max(1, mb / 2);
      add(p);
      p.unroll = 1;
      add(p);
      const int tx = p.threads / p.rows_per_block;
      for (int v = m.vec / 2; v >= 1; v /= 2) {
        KernelParams q = p;
        const int qtx = std::min(32, tx * m.vec / v);
        q.vec = v;
        q.rows_per_block = q.threads / qtx;
        q.min_blocks = v == 1 ? 1 : std::max(1, mb / 2);
        if (v == 1) q.cluster = 1, q.staged = false;  // the last plan: the plainest form
        if (q.cluster > 1 && (q.vec * qtx) % 4) q.cluster = 1;
        if (q.staged && outer_norm_smem(q, m.nb).total() > kOuterNormStaticSmem) q.staged = false;
        add(q);
      }
    }
    return out;
  }
};

}  // namespace

const Scheduler& outer_norm_scheduler() {
  static const OuterNormScheduler s;
  return s;
}

}  // namespace solder
