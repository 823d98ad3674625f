#include "schedule/transpose_view.h"

#include <algorithm>
#include <set>

#include "schedule/launch_grid.h"
#include "schedule/outer_view.h"
#include "schedule/stages.h"

namespace solder {

namespace {

constexpr int kMaxStaticSmem = 48 * 1024;

// The kernel dim along which an operand is unit-stride (of size > 1), or -1.
int unit_dim(const LaunchFacts& lf, const OperandFacts& of) {
  int u = -1;
  for (size_t d = 0; d < lf.dims.size(); ++d)
    if (lf.dims[d] > 1 && of.strides[d] == 1) u = static_cast<int>(d);
  return u;
}

bool varies_along(const LaunchFacts& lf, const OperandFacts& of, int d) { return lf.dims[d] > 1 && of.strides[d] != 0; }

// Every operand is one linear index (or constant) over kernel dims [lo, hi).
bool linear_for_all(const LaunchFacts& lf, int lo, int hi) {
  for (const OperandFacts& of : lf.operands) {
    const Part p = part_of(lf, of, lo, hi);
    if (p.varies && !p.linear) return false;
  }
  return true;
}

// The longest run of kernel dims around `d` within [first, last) (not crossing `other`'s run)
// over which every operand stays linear.
std::pair<int, int> grow_run(const LaunchFacts& lf, int d, std::pair<int, int> other, int first, int last) {
  auto free_dim = [&](int x) { return x < other.first || x >= other.second; };
  int lo = d, hi = d + 1;
  while (lo > first && free_dim(lo - 1) && linear_for_all(lf, lo - 1, hi)) --lo;
  while (hi < last && free_dim(hi) && linear_for_all(lf, lo, hi + 1)) ++hi;
  return {lo, hi};
}

int64_t extent(const LaunchFacts& lf, int lo, int hi) {
  int64_t n = 1;
  for (int d = lo; d < hi; ++d) n *= lf.dims[d];
  return n;
}

// Why a partial reduction does not take the tiles, or nothing: each tile element's outputs are
// its reductions' results and constants (no input read after a reduction, no reduction of
// another's result), and no output varies along the reduced dims (element outputs: a norm's,
// the inner templates').
std::optional<std::string> partial_problem(const ScheduleContext& cx) {
  const Fusion& f = cx.fusion;
  const StagePlan sp = plan_stages(f, cx.segment, cx.shape, false, false);
  if (sp.max_level > 1) return "a reduction reads another's result";
  std::set<int> reductions;
  for (const ReductionStep& st : sp.steps) reductions.insert(st.node);
  const LaunchFacts& lf = cx.facts;
  for (size_t k = cx.shape.num_inputs; k < lf.operands.size(); ++k)
    for (int d = cx.shape.split; d < static_cast<int>(lf.dims.size()); ++d)
      if (varies_along(lf, lf.operands[k], d)) return "an output varies along the reduced dims (a norm)";
  const std::set<int> inputs(cx.shape.operands.begin(), cx.shape.operands.begin() + cx.shape.num_inputs);
  std::set<int> seen;
  std::vector<int> todo(cx.shape.operands.begin() + cx.shape.num_inputs, cx.shape.operands.end());
  while (!todo.empty()) {
    const int v = todo.back();
    todo.pop_back();
    if (!seen.insert(v).second) continue;
    if (inputs.count(v)) return "an output reads an input beside the reductions' results";
    const int p = f.value(v).producer;
    if (p < 0 || reductions.count(p)) continue;
    for (int x : f.nodes()[p].in) todo.push_back(x);
  }
  return std::nullopt;
}

}  // namespace

int transpose_vec(const ScheduleContext& cx, const TransposeView& v, const std::vector<Access>& which,
                  const std::vector<int64_t>& other_stride) {
  const LaunchFacts& lf = cx.facts;
  const TileDims& t = v.tile;
  int widest_bytes = 1;
  for (size_t k = 0; k < lf.operands.size(); ++k)
    if (std::count(which.begin(), which.end(), v.access[k]))
      widest_bytes = std::max(widest_bytes, dtype_size(lf.operands[k].dtype));
  int vec = 16 / widest_bytes;
  for (; vec > 1; vec /= 2) {
    bool ok = true;
    for (size_t k = 0; k < lf.operands.size() && ok; ++k) {
      if (!std::count(which.begin(), which.end(), v.access[k])) continue;
      const OperandFacts& of = lf.operands[k];
      if (of.address % (static_cast<uint64_t>(vec) * dtype_size(of.dtype))) ok = false;
      if (other_stride[k] % vec) ok = false;
      for (int d = 0; d < static_cast<int>(lf.dims.size()); ++d) {
        const bool in_tile = (d >= t.row_lo && d < t.row_hi) || (d >= t.col_lo && d < t.col_hi);
        if (!in_tile && lf.dims[d] > 1 && of.strides[d] % vec) ok = false;
      }
    }
    if (ok) break;
  }
  return vec;
}

bool transpose_reduces(const KernelPlan& plan) {
  // (A partial reduction whose tiles reduce rows and columns has only scalar outputs too.)
  if (plan.shape.category != KernelCategory::Transpose || plan.shape.tile.reduced_lo >= 0) return false;
  bool any = false;
  for (const OperandPlan& o : plan.operands)
    if (o.is_output) {
      if (o.access != Access::Scalar) return false;
      any = true;
    }
  return any;
}

int transpose_smem_bytes(const std::vector<int>& staged_sizes, int tile_rows, int tile_cols) {
  int bytes = 0;
  for (int s : staged_sizes) bytes += tile_rows * (tile_cols / slot_elems(s)) * std::max(4, s);
  return bytes;
}

int transpose_tile_cols(const std::vector<int>& staged_sizes) {
  int e = 1;
  for (int s : staged_sizes) e = std::max(e, slot_elems(s));
  return 32 * e;
}

std::optional<TransposeView> transpose_view(const ScheduleContext& cx, std::string* why) {
  auto no = [&](std::string reason) -> std::optional<TransposeView> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  const LaunchFacts& lf = cx.facts;
  // Full reductions (every dim reduced, scalar results): the element order is free and there
  // is no output layout, so the tiles fold their elements into accumulators (transpose_reduces).
  // Element outputs beside the scalars are left to the flat template.
  const bool full = cx.segment.category == KernelCategory::Full;
  // Partial reductions whose inputs disagree (a sum over dim 0 of x * y, x permuted): the
  // reduced dims are looped inside each tile of two kept dims, each element folding into its
  // own accumulators (TileDims::reduced_lo).
  const bool partial = cx.segment.category == KernelCategory::Inner;
  if (cx.segment.category != KernelCategory::Pointwise && !full && !partial) return no("the segment reduces");
  if (full)
    for (size_t k = cx.shape.num_inputs; k < lf.operands.size(); ++k)
      for (size_t d = 0; d < lf.dims.size(); ++d)
        if (varies_along(lf, lf.operands[k], static_cast<int>(d)))
          return no("the full reduction also writes element outputs: the flat template stores them");
  if (reads_pads_or_windows(cx.fusion, cx.segment)) return no("it reads a cat's pieces (pads, windows): the flat template masks them");
  const Fusion& f = cx.fusion;
  const size_t n = lf.operands.size();
  std::vector<int> unit(n);
  for (size_t k = 0; k < n; ++k) unit[k] = unit_dim(lf, lf.operands[k]);
  // Transposing pairs: operands a, b unit-stride along different dims, each varying along both.
  // Partial reductions: two inputs, along kept dims (an input and an output that disagree are
  // the outer scheduler's: it stores outputs at any kept stride); or, where no two disagree
  // there (`cross`), a along a reduced dim and b along a kept one: the tile's columns are then
  // reduced dims, its rows kept ones, and each tile row folds its columns (tile_reduces_cols).
  const int rank = static_cast<int>(lf.dims.size());
  const int split = partial ? cx.shape.split : rank;
  bool both_reduced = false;  // no pair of those: two inputs along different reduced dims
  auto pair = [&](size_t a, size_t b, bool cross) {
    if (partial && (static_cast<int>(a) >= cx.shape.num_inputs || static_cast<int>(b) >= cx.shape.num_inputs)) return false;
    if (unit[a] < 0 || unit[b] < 0 || unit[a] == unit[b] || !varies_along(lf, lf.operands[a], unit[b]) ||
        !varies_along(lf, lf.operands[b], unit[a]))
      return false;
    if (both_reduced) return unit[a] >= split && unit[b] >= split;
    return cross ? unit[a] >= split && unit[b] < split : unit[a] < split && unit[b] < split;
  };
  // The column dim: the unit dim of the paired operands with the most bytes (ties: an output's,
  // then the later dim); the row dim: that of its partners with the most bytes.
  auto column_dim = [&](bool cross) {
    std::vector<int64_t> weight(rank, 0);
    std::vector<char> output_unit(rank, 0);
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b)
        if (pair(a, b, cross)) {
          weight[unit[a]] += dtype_size(lf.operands[a].dtype);
          if (static_cast<int>(a) >= cx.shape.num_inputs) output_unit[unit[a]] = 1;
          break;
        }
    int dc = -1;
    for (int d = 0; d < rank; ++d)
      if (weight[d] > 0 && (dc < 0 || std::make_pair(weight[d], output_unit[d]) >= std::make_pair(weight[dc], output_unit[dc])))
        dc = d;
    return dc;
  };
  bool cross = false;
  int dc = column_dim(false);
  if (dc < 0 && partial) dc = column_dim(cross = true);
  if (dc < 0 && partial) {
    both_reduced = true;
    dc = column_dim(true);
  }
  if (dc < 0) return no("no two operands are unit-stride along different dims that both vary along");
  if (partial)
    if (auto bad = partial_problem(cx)) return no(*bad);
  std::vector<int64_t> partner(rank, 0);
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      if (unit[a] == dc && pair(a, b, cross)) partner[unit[b]] += dtype_size(lf.operands[b].dtype);
  int dr = -1;
  for (int d = 0; d < rank; ++d)
    if (partner[d] > 0 && (dr < 0 || partner[d] >= partner[dr])) dr = d;

  TransposeView v;
  const auto cols = cross ? grow_run(lf, dc, {dr, dr + 1}, split, rank) : grow_run(lf, dc, {dr, dr + 1}, 0, split);
  const auto rows = both_reduced ? grow_run(lf, dr, cols, split, rank) : grow_run(lf, dr, cols, 0, split);
  v.tile = {rows.first, rows.second, cols.first, cols.second, partial ? split : -1};
  v.rows = extent(lf, rows.first, rows.second);
  v.cols = extent(lf, cols.first, cols.second);
  v.batch = 1;
  v.reduced = 1;
  for (int d = 0; d < rank; ++d) {
    if ((d >= rows.first && d < rows.second) || (d >= cols.first && d < cols.second)) continue;
    (d < split ? v.batch : v.reduced) *= lf.dims[d];
  }
  std::vector<int> staged_sizes;
  for (size_t k = 0; k < n; ++k) {
    const OperandFacts& of = lf.operands[k];
    const Part pr = part_of(lf, of, rows.first, rows.second), pc = part_of(lf, of, cols.first, cols.second);
    v.row_stride.push_back(pr.varies ? pr.stride : 0);
    v.col_stride.push_back(pc.varies ? pc.stride : 0);
    Access a = Access::General;
    if (pc.varies && pc.stride == 1) a = pr.varies ? Access::Full : Access::Col;
    else if (pc.varies && pr.varies && pr.stride == 1) a = Access::Staged;
    else if (!pc.varies) a = pr.varies ? Access::Row : Access::Scalar;
    if (a == Access::Staged) staged_sizes.push_back(dtype_size(of.dtype));
    v.access.push_back(a);
  }
  // Name the disagreement: the first operand fast along the columns, the first along the rows.
  auto name_of = [&](Access want) {
    for (size_t k = 0; k < n; ++k)
      if (v.access[k] == want) return f.value(cx.shape.operands[k]).name;
    return std::string("?");
  };
  v.why = name_of(Access::Staged) + " is unit-stride along kernel dim " + std::to_string(dr) + ", " + name_of(Access::Full) +
          " along dim " + std::to_string(dc);
  if (v.rows < kMinTransposeExtent || v.cols < kMinTransposeExtent)
    return no(v.why + ", but the tile dims (" + std::to_string(v.rows) + " x " + std::to_string(v.cols) +
              ") are too short to tile");
  if (transpose_smem_bytes(staged_sizes, 32, transpose_tile_cols(staged_sizes)) > kMaxStaticSmem)
    return no(v.why + ", but " + std::to_string(staged_sizes.size()) + " staged operands' tiles exceed 48 KB of shared memory");
  const int min_cols = transpose_tile_cols(staged_sizes);
  // A tile row's TC / VEC lanes combine within a warp or two: at least min_cols / 64 elements a
  // vector (byte-sized staged operands: 2).
  if (cross && !both_reduced && transpose_vec(cx, v, {Access::Full, Access::Col}, v.row_stride) * 64 < min_cols)
    return no(v.why + ", but the reduced columns' operands are not aligned for vectors of " + std::to_string(min_cols / 64) +
              " (a tile row's lanes must fit two warps)");
  // A partial reduction's tile loops over the reduced dims, which its split form (grid_split)
  // shares among blocks (kept_tile_splits): with fewer of the smallest tiles, times their
  // splits, than SMs most of the device idles, where the element-wise reads of the inner
  // template spread the same work over every SM.
  const int64_t tiles = v.batch * ((v.rows + 31) / 32) * ((v.cols + min_cols - 1) / min_cols);
  if (partial && !cross && tiles * std::max<int64_t>(1, kept_tile_splits(v.reduced, tiles, cx.device.sm_count)) < cx.device.sm_count)
    return no(v.why + ", but " + std::to_string(v.rows) + " x " + std::to_string(v.cols) + " kept elements and " +
              std::to_string(v.reduced) + " reduced make fewer tiles and splits than SMs");
  return v;
}

}  // namespace solder
