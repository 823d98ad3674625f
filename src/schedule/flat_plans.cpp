#include "schedule/flat_plans.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "schedule/launch_grid.h"

namespace solder {

namespace {
// Single-row problems this large give each thread several vectors per pass (more bytes in
// flight, fewer blocks); perf-notes has the measurements.
constexpr int64_t kUnrollFromElements = int64_t{1} << 20;
constexpr int kUnroll = 4;
// 8 resident blocks of 256 threads fill an SM's 2048 threads.
constexpr int kFlatThreads = 256;

// Windows and pads (a cat's pieces in one kernel): whether `vec` keeps each chunk wholly inside
// or outside every one (windows_fit: the facts' cuts along the innermost dim, symbolic bounds at
// their values at this launch: a plan serves the launch signature it was chosen for, and
// launch_grid refuses it where vec does not divide them); `windowed` says the segment has any.
bool windows_allow(const ScheduleContext& cx, int vec, bool& windowed) {
  windowed = windowed || cx.facts.windowed;
  return windows_fit(cx.facts, vec);
}

// Phase-shifted rows for flat kernels whose rows do not start vector-aligned (C = 4097, a view
// at an odd offset): each row's chunks start at the aligned vector that overlaps its first
// element, masked at both ends (a full reduction's masked lanes add nothing: the partial
// vectors at the row's ends take the element path, which skips them). Every row-varying (Full) operand must be off by the same
// number of elements in every row (the same phase of its address and of each row dim's
// stride: rows addressed per kernel dim too), so one shift aligns them all; weights (Col) are then read element by element. The vector width
// in elements, or 0 where rows are aligned already or the phases differ. (Where the aligned
// plan's vectors are narrower only for its weights, flat_candidates weighs the two.)
int phased_vec(const KernelPlan& plan, const LaunchFacts& facts, int aligned_vec) {
  if (facts.R <= 1) return 0;
  int widest = 0;
  for (size_t k = 0; k < plan.operands.size(); ++k)
    if (plan.operands[k].access == Access::Full) widest = std::max(widest, dtype_size(facts.operands[k].dtype));
  if (widest == 0 || widest > 8) return 0;
  const int v = 16 / widest;
  if (v <= aligned_vec || facts.C < 2 * v) return 0;
  std::vector<int64_t> phases, first;  // the address's phase, then each row dim's stride's
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    if (plan.operands[k].access != Access::Full) continue;
    const OperandFacts& of = facts.operands[k];
    const uint64_t es = dtype_size(of.dtype);
    if (of.address % es) return 0;
    phases = {static_cast<int64_t>(of.address / es % v)};
    for (int d = 0; d < plan.shape.split; ++d)
      if (facts.dims[d] > 1) phases.push_back(of.strides[d] % v);
    if (first.empty()) first = phases;
    else if (phases != first) return 0;
  }
  return v;
}

// Vectors of VEC a 2-D plan's row spans: phased rows start up to VEC - 1 elements early.
int64_t row_vectors(const KernelParams& p, const LaunchFacts& facts) {
  return (facts.C + (p.col_vec > 0 ? p.vec - 1 : 0) + p.vec - 1) / p.vec;
}

// The share of a 2-D plan's thread slots (each a vector of `full_vec` elements, the widest any
// plan loads) that hold row elements: the last chunk's idle lanes and narrower vectors lose it.
double lanes_used(const LaunchFacts& facts, const KernelParams& p, int full_vec) {
  const int64_t nv = row_vectors(p, facts), chunks = (nv + p.threads - 1) / p.threads;
  return static_cast<double>(facts.C) / full_vec / static_cast<double>(chunks * p.threads);
}

// Threads of a 2-D plan whose row's vectors fill its passes evenly: as many passes as at
// kFlatThreads, the fewest whole warps that cover the row in them, but no fewer than fill an SM
// at its resident-block limit (64 on the H100: 32 blocks of 64). Rows that fit one pass take
// blocks as wide as their vectors: an idle thread holds a resident slot that another row's
// vectors could use (seed 8: bf16 rows of 333 in vectors of 8 kept 43 of 256 threads busy).
// Rows of several passes lose the last pass's idle share otherwise: a phased bf16 row of 4097
// is 513 vectors, a third pass of 1 at 256 threads, 3 of 171 at 192 (seed 35 #085, 20.8 ->
// 19.1 us).
int even_pass_threads(const KernelParams& p, const LaunchFacts& facts, const DeviceInfo& dev) {
  const int64_t nv = row_vectors(p, facts), passes = (nv + kFlatThreads - 1) / kFlatThreads;
  const int64_t floor = std::clamp<int64_t>(dev.max_threads_per_sm / std::max(1, dev.max_blocks_per_sm), 32, kFlatThreads);
  return static_cast<int>(std::clamp<int64_t>(((nv + passes - 1) / passes + 31) / 32 * 32, floor, kFlatThreads));
}

// One row of R x C whose rows are not vec-aligned (col_vec=1): whether a warp's lanes should
// take consecutive elements (KernelParams::interleave). Read element by element at a thread's
// own consecutive elements, an operand's load spans VEC x 32 elements (VEC times the lines a
// warp's 32 consecutive ones touch), but interleaving reads the vector operands element by
// element too. Measured (perf-notes 2026-12-02 18:08, calls 129-130): it pays where the
// operands streamed element by element (full/dims: rows of their own) outnumber the vector
// ones (seed 33 #080, three against the output: 32.3 -> 27.0 us); one beside two vector
// operands lost 5-25 % (seed 33 #068, seed 27 #049), and so did a weight (Col: the same columns
// every row, L1 hits) beside them (seed 29 #036: 14.1 -> 21.4).
bool interleave_pays(const KernelPlan& one) {
  int streamed = 0, vectors = 0;
  for (const OperandPlan& o : one.operands)
    if (o.access == Access::Full) ++(one_row_dims_by_element(one.params, o) ? streamed : vectors);
  return streamed > vectors;
}

// One row of R x C elements (KernelParams::one_row): a Full operand dense over [R, C] (ld == C)
// lies at the element's flat index; one at another row stride (a slice's rows: the halves of a
// swiglu's input) is addressed from its row's offset per vector (rows by dim), only where every
// row is vec-aligned. Vectors (16 bytes, or as wide as their addresses allow) stay aligned
// across row ends. Where rows are vec-aligned, every operand keeps its vectors; otherwise
// weights and full/dims operands are read element by element. With no vector operand (rows of
// one element beside a [1, M, 1] operand, where the 2-D grid gives each row a block), one
// element per thread. Only with 32-bit index math (a division per vector); windows (a cat's
// pieces) where vec divides their bounds and the rows (windows_allow). Nothing where the domain
// is one row already.
std::optional<KernelPlan> one_row_plan(const KernelPlan& plan, const LaunchFacts& facts, int threads) {
  if (plan.shape.category != KernelCategory::Pointwise || facts.R <= 1 || !fits_index32(facts)) return std::nullopt;
  KernelPlan r = plan;
  int widest = 0;
  bool restrided = false;  // a Full operand at another row stride, addressed by dim here
  for (size_t k = 0; k < r.operands.size(); ++k) {
    OperandPlan& o = r.operands[k];
    if (o.access == Access::Full || o.access == Access::Col) widest = std::max(widest, dtype_size(facts.operands[k].dtype));
    if (o.access == Access::Full && !o.rows_by_dim && facts.operands[k].ld != facts.C) o.rows_by_dim = restrided = true;
  }
  if (widest > 8) return std::nullopt;
  // 16 bytes of the widest, narrowed until every dense operand's address allows it; 1 where none
  // loads vectors (rows of one element: K = 1).
  int vec = widest ? 16 / widest : 1;
  auto dense_aligned = [&](int v) {
    for (size_t k = 0; k < r.operands.size(); ++k)
      if (r.operands[k].access == Access::Full && !r.operands[k].rows_by_dim &&
          facts.operands[k].address % (static_cast<uint64_t>(v) * dtype_size(facts.operands[k].dtype)))
        return false;
    return true;
  };
  while (vec > 1 && !dense_aligned(vec)) vec /= 2;
  bool aligned_rows = facts.C % vec == 0;
  for (size_t k = 0; k < r.operands.size(); ++k) {
    const OperandPlan& o = r.operands[k];
    const uint64_t bytes = static_cast<uint64_t>(vec) * dtype_size(facts.operands[k].dtype);
    if ((o.access == Access::Col || (o.access == Access::Full && o.rows_by_dim)) &&
        (facts.operands[k].address % bytes || !row_steps_divisible(facts, static_cast<int>(k), plan.shape.split, vec)))
      aligned_rows = false;
  }
  r.params.vec = vec;
  r.params.threads = threads;
  r.params.unroll = 1;
  r.params.col_vec = aligned_rows || vec == 1 ? 0 : 1;
  // Rows at other strides that are not vec-aligned would be read element by element (not
  // measured against the 2-D plan's rows in flight): none.
  if (restrided && r.params.col_vec) return std::nullopt;
  r.params.one_row = true;
  // full/dims operands whose vectors at the flat index lie in one aligned run of them (a
  // [1, M, K] operand broadcast over B where M x K is a multiple of vec) load as vectors there.
  if (r.params.col_vec == 1)
    for (size_t k = 0; k < r.operands.size(); ++k)
      if (OperandPlan& o = r.operands[k]; o.access == Access::Full && o.rows_by_dim)
        o.segments = flat_segments(facts, static_cast<int>(k), plan.shape.split, vec);
  r.params.interleave = r.params.col_vec == 1 && interleave_pays(r);
  if (r.params.interleave)
    for (OperandPlan& o : r.operands) o.segments = false;
  r.params.index32 = true;
  return r;
}

// The model that picks one row of R x C over the 2-D grid: the share of thread slots that hold
// elements (lanes_used) against one row's, where every slot is whole. Taken where it was
// measured to pay: rows that do not start vec-aligned (a [1, M, 1] mask over rows of 4097: 50 ->
// 101 % of a copy), reading weights element by element only where the 2-D plan's vectors would
// be narrower (broadcasts along every axis: 56 -> 70 %; where the 2-D plan keeps its width, as
// W5's gelu + bias over rows of 770 does, it stays), and rows of one element. Aligned rows
// whose last chunk idles are not measured against the 2-D plan yet.
bool prefer_one_row(const KernelPlan& one_row, const KernelParams& grid2d, const LaunchFacts& facts) {
  // Aligned rows keep every vector in one row of R x C, at a division per vector: taken where
  // the 2-D plan idles more than half its lanes (rows of 64 under a permuted view: 16 of 256).
  if (one_row.params.vec > 1 && !one_row.params.col_vec) return lanes_used(facts, grid2d, one_row.params.vec) < 0.5;
  for (const OperandPlan& o : one_row.operands)
    if (one_row.params.col_vec && (o.access == Access::Col || one_row_dims_by_element(one_row.params, o)) &&
        grid2d.vec >= one_row.params.vec)
      return false;
  return 1.0 > lanes_used(facts, grid2d, one_row.params.vec) + 0.05;
}
// Shift plans (KernelParams::shift): Full inputs read at their own phase, so only outputs and
// weights must be vector-aligned. Windows along the innermost dim need not align with vec (a
// lane's index wraps once: the innermost dim holds at least a vector where columns span several
// dims); along outer column dims, vec divides the innermost dim (a chunk has one index there);
// a pad read as a weight (Col) keeps windows_allow's rule.
bool shift_windows_allow(const ScheduleContext& cx, const KernelPlan& plan, int vec) {
  const int rank = static_cast<int>(cx.shape.dim_order.size()), split = cx.shape.split;
  if (rank == 0 || cx.facts.dims.empty()) return true;
  if (rank - split >= 2 && cx.facts.dims[rank - 1] < vec) return false;
  for (int ni : cx.segment.nodes)
    for (int v : cx.fusion.nodes()[ni].in) {
      const Node* n = pad_or_window(cx.fusion, v);
      if (!n) continue;
      if (pad_chain(cx.fusion, v).size() > 1) return false;  // shifted loads mask one dim (Writer::shifted_load)
      const int kd = window_dim(cx.fusion, cx.shape, v);
      if (kd < split) continue;
      bool full_input = n->op == Op::Window;  // a mask computed per lane
      for (const OperandPlan& o : plan.operands)
        if (o.value == v && !o.is_output && o.access == Access::Full) full_input = true;
      if (kd == rank - 1 && full_input) continue;
      if (cx.facts.dims[rank - 1] % vec) return false;
      if (kd != rank - 1) continue;
      const std::vector<Dim> symbolic = symbolic_bounds(cx.fusion, cx.segment);
      const int64_t lo = bound_value(symbolic, cx.facts, n->attrs.bound_start),
                    end = bound_value(symbolic, cx.facts, n->attrs.bound_end);
      const int64_t hi = n->op == Op::Window ? end : cx.facts.dims[rank - 1] - end;
      if (lo % vec || hi % vec) return false;
    }
  return true;
}

// The shift plan at these facts: 16 bytes of the widest vector operand, narrowed until outputs
// and weights are aligned (address, and an output's row steps) and every Full input is
// element-aligned with vectors of at least 4 bytes (the shift moves 32-bit words).
std::optional<KernelPlan> shift_plan(const KernelPlan& plan, const ScheduleContext& cx) {
  const LaunchFacts& facts = cx.facts;
  if (plan.shape.category != KernelCategory::Pointwise) return std::nullopt;
  int widest = 0;
  bool full_input = false;
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    const OperandPlan& o = plan.operands[k];
    if (o.access == Access::Full || o.access == Access::Col) widest = std::max(widest, dtype_size(facts.operands[k].dtype));
    full_input |= o.access == Access::Full && !o.is_output;
  }
  if (!full_input || widest == 0 || widest > 8) return std::nullopt;
  auto fits = [&](int v) {
    for (size_t k = 0; k < plan.operands.size(); ++k) {
      const OperandPlan& o = plan.operands[k];
      const OperandFacts& of = facts.operands[k];
      const uint64_t es = dtype_size(of.dtype);
      if (o.access == Access::Col && of.address % (v * es)) return false;
      if (o.access == Access::Full && o.is_output &&
          (of.address % (v * es) || (facts.R > 1 && !row_steps_divisible(facts, static_cast<int>(k), plan.shape.split, v))))
        return false;
      if (o.access == Access::Full && !o.is_output && (of.address % es || v * es < 4)) return false;
    }
    return shift_windows_allow(cx, plan, v);
  };
  int vec = 16 / widest;
  while (vec > 1 && !fits(vec)) vec /= 2;
  if (vec < 2) return std::nullopt;
  KernelPlan r = plan;
  r.params.vec = vec;
  r.params.shift = true;
  r.params.unroll = 1;
  r.params.col_vec = 0;
  r.params.one_row = false;
  return r;
}

// Load and store instructions per element of a flat plan at these facts, the model that ranks a
// shift plan against the others: a vector costs 1 / vec per element, an element 1, a shifted
// vector (an input whose rows are not aligned) 3 / vec (two loads and the shift's selects);
// rows and scalars are loaded once per row or thread (0).
double access_cost(const KernelPlan& plan, const LaunchFacts& facts) {
  const KernelParams& p = plan.params;
  const bool by_element = p.col_vec == 1, phased = by_element && !p.one_row;
  double cost = 0;
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    const OperandPlan& o = plan.operands[k];
    const OperandFacts& of = facts.operands[k];
    const double v = p.vec;
    switch (o.access) {
      case Access::Scalar:
      case Access::Row: break;
      case Access::Col: cost += by_element || p.vec == 1 ? 1.0 : 1.0 / v; break;
      case Access::Full: {
        if (p.vec == 1 || one_row_dims_by_element(p, o)) {
          cost += 1.0;
          break;
        }
        const uint64_t bytes = static_cast<uint64_t>(p.vec) * dtype_size(of.dtype);
        const bool aligned = phased || (of.address % bytes == 0 && row_steps_divisible(facts, static_cast<int>(k), plan.shape.split, p.vec));
        cost += (p.shift && !o.is_output && !aligned ? 3.0 : 1.0) / v;
        break;
      }
      default: cost += 1.0;
    }
  }
  return cost;
}

// Rows in flight (KernelParams::row_unroll) for a 2-D pointwise plan: each thread loads one
// vector per row of its pass, and one row at a time left one vector's loads in flight per
// thread (seed 11 #053: 12 bytes, f16 rows of 333 and a bool mask in phased vectors of 4 at 96
// threads; at vec 1, an element is a vector of one: odd halves of f16 rows held 4 bytes, seed 30
// #024). Rows enough that each thread keeps about kRowBytesInFlight bytes of vector loads in
// flight, at most kMostRows, and no fewer blocks (passes x R / rows) than kRowWaves waves of
// resident ones (kNarrowRowWaves for rows of one pass narrower than kFlatThreads, fitted to
// short rows: a block's rows are its only work there, and more of them paid down to two waves,
// where 256-thread blocks lost); 1 where that is one row, where no input loads vectors, or
// where the plan is not of that form.
// Full reductions over rows (a slice of a wider tensor) too: their one resident wave of blocks
// (launch_grid) takes a block per pass, so only where the passes fit that wave.
constexpr int kRowBytesInFlight = 64, kMostRows = 4, kRowWaves = 4, kNarrowRowWaves = 2;
int rows_in_flight(const KernelPlan& plan, const LaunchFacts& facts, const DeviceInfo& dev) {
  const KernelParams& p = plan.params;
  const bool full = plan.shape.category == KernelCategory::Full;
  if ((plan.shape.category != KernelCategory::Pointwise && !full) || facts.R <= 1 || p.one_row || p.shift || p.unroll != 1 ||
      p.threads < 1)
    return 1;
  const bool by_element = p.col_vec == 1;
  const int64_t span = facts.C + (by_element ? p.vec - 1 : 0), passes = (span + int64_t{p.threads} * p.vec - 1) / (int64_t{p.threads} * p.vec);
  if (full && passes > int64_t{dev.sm_count} * std::max(1, dev.max_threads_per_sm / p.threads)) return 1;
  int bytes = 0;  // a row's vector loads per thread
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    const OperandPlan& o = plan.operands[k];
    if (o.is_output) continue;
    if (o.access == Access::Full || (o.access == Access::Col && !by_element)) bytes += p.vec * dtype_size(facts.operands[k].dtype);
  }
  if (bytes == 0) return 1;
  int rows = std::clamp(kRowBytesInFlight / bytes, 1, kMostRows);
  const int64_t resident =
      int64_t{dev.sm_count} * std::max(1, std::min(dev.max_blocks_per_sm, dev.max_threads_per_sm / std::max(1, p.threads)));
  const int waves = p.threads < kFlatThreads && passes == 1 ? kNarrowRowWaves : kRowWaves;
  while (rows > 1 && passes * ((facts.R + rows - 1) / rows) < waves * resident) --rows;
  return rows;
}
}  // namespace

std::vector<KernelPlan> flat_candidates(const ScheduleContext& cx) {
  KernelPlan plan = base_plan(cx.fusion, cx.segment, cx.segment_index, cx.shape, cx.facts);
  KernelParams& p = plan.params;
  // General operands: the row part apart from the columns (see flat_columns), so a
  // [1, M, 1] operand is read once per row and a [B, 1, K] one as vectors from its row's base.
  // The divisions that remain (a row's index into kernel dims, a General column's, a window's
  // or pad's index along a dim inside its rows or columns) are 32-bit where every offset fits.
  bool divides = false;
  for (int ni : cx.segment.nodes)
    for (int v : cx.fusion.nodes()[ni].in) divides |= window_divides(cx.fusion, cx.shape, v);
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    OperandPlan& o = plan.operands[k];
    if (o.access != Access::General) continue;
    const FlatColumns fc = flat_columns(cx.facts, static_cast<int>(k), cx.shape.split);
    o.access = fc.access;
    o.rows_by_dim = fc.rows_by_dim;
    divides |= o.rows_by_dim || o.access == Access::General;
  }
  p.index32 = divides && fits_index32(cx.facts);
  // Pointwise kernels over a single row may end in a masked tail; others need C % vec == 0 so
  // every row starts aligned.
  p.vec = widest_vec(plan, cx.facts, cx.facts.R == 1);
  // With no operand loaded as a vector (every one General, per row or scalar), VEC would only
  // give each thread VEC consecutive elements: a warp's reads then stride VEC apart, and the
  // element-wise addressing unrolled VEC x UNROLL times took ptxas seconds (a full reduction of
  // a sliced bf16 2048 x 16384: 2.7 s at VEC 16, seed 4 of the sweep). One element per thread.
  const bool any_vector = std::any_of(plan.operands.begin(), plan.operands.end(), [](const OperandPlan& o) {
    return o.access == Access::Full || o.access == Access::Col;
  });
  if (!any_vector) p.vec = 1;
  bool windowed = false;
  windows_allow(cx, 1, windowed);
  while (p.vec > 1 && !windows_allow(cx, p.vec, windowed)) p.vec /= 2;
  p.threads = kFlatThreads;
  p.unroll = cx.facts.R == 1 && cx.facts.C >= kUnrollFromElements ? kUnroll : 1;
  const std::optional<Choice> pick = cx.recorded_choice(cx.facts.C, p.vec);
  if (pick && pick->threads) {
    p.threads = pick->threads;
    p.unroll = pick->unroll;
  }
  std::vector<KernelPlan> out;
  const int most = p.threads;
  // Phased rows where they cost fewer loads and stores per element than the aligned plan: rows
  // that do not start aligned, not aligned rows whose vectors a wide weight narrows (seed 18
  // #082: a bool mask and an f16 output beside an f32 weight, phased vectors of 8 with the
  // weight element by element 53.6 us, the aligned vectors of 4 39.6; seed 12 #020 likewise).
  if (const int v = windowed ? 0 : phased_vec(plan, cx.facts, p.vec)) {
    KernelPlan phased = plan;
    phased.params.vec = v;
    phased.params.col_vec = 1;  // weights one element at a time
    if (access_cost(phased, cx.facts) < access_cost(plan, cx.facts)) out.push_back(phased);
  }
  out.push_back(plan);
  if (const auto one = pick ? std::nullopt : one_row_plan(plan, cx.facts, most))
    if ((!windowed || windows_allow(cx, one->params.vec, windowed)) && prefer_one_row(*one, out.front().params, cx.facts))
      out.insert(out.begin(), *one);
  // Inputs read at their own phase: first where the model's loads and stores per element are
  // under three quarters of the first plan's (rows or a cat's pieces at phases that narrow every
  // vector). Against phased rows, under half: their weights, read element by element, are the
  // same columns in every row, L1 hits that the model counts in full (perf-notes 2026-11-27,
  // seed 11 #019 and #141).
  if (auto sh = pick ? std::nullopt : shift_plan(plan, cx)) {
    const double mine = access_cost(*sh, cx.facts), first = access_cost(out.front(), cx.facts);
    char why[160];
    std::snprintf(why, sizeof why, "inputs at their own phases (shift, vec=%d): %.2f loads and stores per element against %.2f (vec=%d)",
                  sh->params.vec, mine, first, out.front().params.vec);
    if (mine < (out.front().params.col_vec ? 0.5 : 0.75) * first) {
      sh->why = why;
      out.insert(out.begin(), *sh);
    }
  }
  // Fallbacks after spills: fewer values in flight per thread.
  while (p.unroll > 1 || p.vec > 1) {
    if (p.unroll > 1) p.unroll = 1;
    else p.vec /= 2;
    out.push_back(plan);
  }
  // 2-D plans without a recorded choice: the row's passes evenly filled (even_pass_threads; the
  // choice of one row of R x C above compared against kFlatThreads, as measured). Full
  // reductions' blocks are one resident wave, so there a last pass of a few vectors idles its
  // blocks' share of the device outright. A single row's blocks stride over its elements: only
  // its last block has a last pass, and small single rows keep one thread count, so that
  // horizontal fusion can stack them as one kernel.
  const bool two_d = cx.facts.R > 1 && (plan.shape.category == KernelCategory::Pointwise || plan.shape.category == KernelCategory::Full);
  if (!pick && two_d)
    for (KernelPlan& c : out)
      if (!c.params.one_row && c.params.unroll == 1 && c.params.threads == kFlatThreads)
        c.params.threads = even_pass_threads(c.params, cx.facts, cx.device);
  // Rows in flight for the first plan where it is a 2-D one (above); the plan as it was after
  // it (the fallback where the rows' loads spill).
  if (!pick)
    if (const int rows = rows_in_flight(out.front(), cx.facts, cx.device); rows > 1) {
      KernelPlan ru = out.front();
      ru.params.row_unroll = rows;
      // 32-bit rows and row offsets where every offset fits (see write_flat): fewer registers
      // for the rows held (index32 was only for the divisions of split rows).
      ru.params.index32 = ru.params.index32 || fits_index32(cx.facts);
      char why[160];
      std::snprintf(why, sizeof why, "rows of %lld elements (%d threads x vec=%d a pass): %d rows' loads in flight per thread",
                    static_cast<long long>(cx.facts.C), ru.params.threads, ru.params.vec, rows);
      ru.why = ru.why.empty() ? std::string(why) : ru.why + "; " + why;
      out.insert(out.begin(), ru);
    }
  return out;
}

}  // namespace solder
