#include "schedule/launch_grid.h"

#include <algorithm>

#include "schedule/transpose_view.h"
#include "solder/error.h"

namespace solder {

Grid launch_grid(const KernelPlan& plan, const LaunchFacts& facts, const DeviceInfo& dev, int resident_per_sm,
                 int resident_clusters) {
  const auto& p = plan.params;
  Grid g;
  g.block = static_cast<unsigned>(p.threads);
  g.smem = static_cast<unsigned>(p.dyn_smem);
  if (plan.shape.category == KernelCategory::Outer) {
    // Kernel order [kept | reduced]: R kept columns, C reduced rows (see outer_scheduler.cpp).
    // A block takes TX x VEC kept columns; in the grid form its rows are one of gridDim.y
    // splits, each thread taking at least 8 steps of `unroll` rows per split (4 where that is
    // what fills one wave, 2 where 4 leave SMs without a block). Blocks do equal work, so the grid is whole waves of resident blocks
    // (one, or two where the rows allow): 768 blocks where 528 are resident would take two
    // waves' time for 1.45 waves' work.
    const int64_t ty = p.rows_per_block, tx = p.threads / p.rows_per_block;
    // A kernel without the strides check (kept_run) computes its kept run as the first input's
    // contiguous one: refused where an operand's stride ends it earlier here.
    if (!p.kept_run)
      for (size_t k = 0; k < plan.operands.size(); ++k)
        if (!plan.operands[k].is_output && plan.operands[k].access == Access::Full) {
          int64_t hk = 1;
          bool early = false;
          outer_kept_run(facts, static_cast<int>(k), plan.shape.split, hk, &early);
          if (early)
            throw Error("kernel " + plan.name + ": an operand's strides end the inner kept run before the first input's " +
                        "contiguous run does; the plan needs kept_run");
          break;
        }
    // Held rows in shared memory (smem_rows): within a block's opt-in limit.
    if (p.dyn_smem > dev.smem_per_block_optin)
      throw Error("kernel " + plan.name + ": its held rows take " + std::to_string(p.dyn_smem) + " bytes of shared memory (smem_rows=" +
                  std::to_string(p.smem_rows) + "); a block may have " + std::to_string(dev.smem_per_block_optin) +
                  ": pin fewer smem_rows or a larger cluster");
    // Held rows (the normalization form): every slot but the last lies inside the rows. A
    // cluster's blocks share a tile's rows, in chunks of TY (see write_outer_norm).
    const int64_t span = ty * p.cluster;
    if (p.batch > 0 && !(facts.C <= p.batch * span && facts.C > (p.batch - 1) * span))
      throw Error("kernel " + plan.name + " (" + std::to_string(p.batch) + " rows x " + std::to_string(ty) + " threads" +
                  (p.cluster > 1 ? " x " + std::to_string(p.cluster) + " blocks" : std::string()) + ") cannot hold " +
                  std::to_string(facts.C) + " rows");
    // Phase-shifted kept columns: tiles inside one outer kept index (see write_outer).
    const int64_t tiles = p.col_vec ? outer_phased_tiles(plan, facts, tx * p.vec) : (facts.R + tx * p.vec - 1) / (tx * p.vec);
    const int64_t gx = std::clamp<int64_t>(tiles, 1, ((int64_t{1} << 31) - 1) / p.cluster);
    int64_t gy = 1;
    if (p.grid_split) {
      const int64_t resident = int64_t{dev.sm_count} * std::max(1, resident_per_sm);
      auto most = [&](int64_t steps) { return std::clamp<int64_t>(facts.C / (ty * p.unroll * steps), 1, 65535); };
      const int64_t waves = std::clamp<int64_t>(gx * most(8) / resident, 1, 2);
      // Few kept tiles (a column var of 16384 x 128: one tile) with 4 steps per split left half
      // the SMs without a block: down to 2 steps per split where that gives every SM one.
      const int64_t fill = std::min(most(2), (int64_t{dev.sm_count} + gx - 1) / gx);
      gy = std::clamp<int64_t>(waves * resident / gx, 1, waves > 1 ? most(8) : std::max(most(4), fill));
    }
    g.x = static_cast<unsigned>(gx * p.cluster);
    g.y = static_cast<unsigned>(gy);
    g.cluster = static_cast<unsigned>(p.cluster);
    return g;
  }
  if (plan.shape.category == KernelCategory::Transpose) {
    if (p.index32 && !fits_index32(facts))
      throw Error("kernel " + plan.name + " (index32) cannot address operands of these sizes in 32 bits");
    // A block per tile (each block loops at the grid's stride where tiles outnumber 2^31 - 1).
    const int64_t tiles = std::clamp<int64_t>(transpose_tiles(plan, facts), 1, (int64_t{1} << 31) - 1);
    g.x = static_cast<unsigned>(tiles);
    if (transpose_reduces(plan)) {
      // Full reductions: at most one resident wave (each block adds its partials by atomics and
      // counts itself done), its tiles shared out evenly (seed 11 #129, 2080 tiles over 528
      // resident blocks: 520 blocks of four tiles, not 528 of which 496 take four: the same
      // time, fewer partials to add).
      const int64_t per_sm = resident_per_sm > 0 ? resident_per_sm : std::max(1, dev.max_threads_per_sm / p.threads);
      const int64_t resident = std::max<int64_t>(1, int64_t{dev.sm_count} * per_sm);
      const int64_t each = (tiles + resident - 1) / resident;
      g.x = static_cast<unsigned>((tiles + each - 1) / each);
    }
    if (tile_reduces_cols(plan.shape.tile) || p.grid_split) {
      // Partial reductions: kept tiles under a wave of resident blocks split their chunks (the
      // reduced indices outside the tile, and the column chunks where the tile reduces its
      // columns) over gridDim.y, up to a wave: a block's chunks run one after another (a chunk
      // in flight), so more splits keep more loads in flight (seed 13 #003, 2 tiles of 64
      // chunks: 16 splits took 14.6 us where the outer template took 7.9). The splits leave
      // partials and the tile's last block combines them (write_cross, write_partial). Tiles
      // of kept dims split only where their plan has the split form (grid_split: the
      // scheduler's choice at its facts).
      const int64_t per_sm = resident_per_sm > 0 ? resident_per_sm : std::max(1, dev.max_threads_per_sm / p.threads);
      const int64_t resident = std::max<int64_t>(1, int64_t{dev.sm_count} * per_sm);
      const int64_t chunks = transpose_reduced_chunks(plan, facts);
      const int64_t most = tile_reduces_cols(plan.shape.tile) ? chunks : kept_tile_splits(chunks, tiles, dev.sm_count);
      g.y = static_cast<unsigned>(std::clamp<int64_t>(resident / tiles, 1, std::clamp<int64_t>(most, 1, 65535)));
    }
    return g;
  }
  if (plan.shape.category == KernelCategory::Inner) {
    if (p.index32 && !fits_index32(facts))
      throw Error("kernel " + plan.name + " (index32) cannot address operands of these sizes in 32 bits");
    // Aligned rows (no col_vec) load whole vectors from each row's start: a pinned vec the rows
    // or the operands' addresses do not allow (a looped pin over a phased plan) is refused here,
    // by the test the scheduler picks its vec with.
    // Shift plans read each Full input at its own phase: only the outputs' and weights' vectors,
    // the row length and the inputs' element alignment and row steps (shifted_inner_vec) count.
    if (p.shift && shifted_inner_vec(plan, facts) < p.vec)
      throw Error("kernel " + plan.name + " (" + p.str() + "): rows of " + std::to_string(facts.C) +
                  " elements, an output's or weight's row starts, or an input's element alignment or row stride (at least" +
                  " a row) do not allow vectors of " + std::to_string(p.vec) + " read at each input's phase (pin shift=0 or a narrower vec)");
    if (p.vec > 1 && p.col_vec == 0 && !p.shift && widest_vec(plan, facts, false) < p.vec)
      throw Error("kernel " + plan.name + " (" + p.str() + "): rows of " + std::to_string(facts.C) +
                  " elements, or an operand's row starts, are not whole vectors of " + std::to_string(p.vec) +
                  " (pin col_vec or a narrower vec)");
    // Phased rows: every row-varying operand at one phase, weights aligned to the plan's step
    // (phase_step, the scheduler's test); a pin at other facts would misalign the vectors.
    if (const int g = p.col_vec > 0 ? phase_step(plan, facts, p.vec) : 1; g == 0 || g % std::max(1, p.col_vec))
      throw Error("kernel " + plan.name + " (" + p.str() + "): the operands' rows are not all at one phase of vectors of " +
                  std::to_string(p.vec) + " with weights aligned to " + std::to_string(p.col_vec) +
                  " elements (phased rows need that; pin col_vec=0 or a narrower vec)");
    // Persistent kernels assume every batch but the last lies inside the row (see write_inner);
    // phase-shifted ones that the batches cover the row and that at every phase the batches but
    // the last hold whole vectors (slots 1 .. (batch - 1) * tpr). A cluster's blocks share a row.
    const int64_t nvec = (facts.C + (p.col_vec ? p.vec - p.col_vec : 0) + p.vec - 1) / p.vec,
                  tpr = int64_t{p.threads_per_row} * p.cluster * p.row_split;
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
    // Split rows: row_split blocks per row, each taking one (see write_inner).
    if (p.row_split > 1) {
      // A row's blocks wait for each other: the device must hold them all at once (a pinned plan
      // could ask for more).
      if (p.row_split > int64_t{dev.sm_count} * std::max(1, resident_per_sm))
        throw Error("kernel " + plan.name + " (row_split=" + std::to_string(p.row_split) + "): more blocks per row than " +
                    "the device holds at once (" + std::to_string(dev.sm_count) + " SMs x " +
                    std::to_string(std::max(1, resident_per_sm)) + ")");
      if (facts.R > ((int64_t{1} << 31) - 1) / p.row_split)
        throw Error("kernel " + plan.name + " (row_split=" + std::to_string(p.row_split) + ") cannot launch " +
                    std::to_string(facts.R) + " rows");
      g.x = static_cast<unsigned>(std::max<int64_t>(facts.R, 1) * p.row_split);
      return g;
    }
    g.x = static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, (int64_t{1} << 30) / p.cluster) * p.cluster);
    g.cluster = static_cast<unsigned>(p.cluster);
    return g;
  }
  if (p.index32 && !fits_index32(facts))
    throw Error("kernel " + plan.name + " (index32) cannot address operands of these sizes in 32 bits");
  if (const std::string why = flat_vectors_misfit(plan, facts); !why.empty())
    throw Error("kernel " + plan.name + " (" + p.str() + "): vectors of " + std::to_string(p.vec) + " do not fit: " + why);
  if (p.one_row) {  // one row of R x C elements (see write_flat), a block per THREADS vectors
    if (!p.col_vec && facts.C % p.vec)
      throw Error("kernel " + plan.name + " (one_row, aligned rows) cannot take rows of " + std::to_string(facts.C) +
                  " elements in vectors of " + std::to_string(p.vec));
    // Its dense operands are addressed at the element's index in the one row (see write_flat).
    for (size_t k = 0; k < plan.operands.size() && facts.R > 1; ++k)
      if (plan.operands[k].access == Access::Full && !plan.operands[k].rows_by_dim && facts.operands[k].ld != facts.C)
        throw Error("kernel " + plan.name + " (one_row) needs rows of " + std::to_string(facts.C) +
                    " elements at a row stride of as many, not " + std::to_string(facts.operands[k].ld));
    const int64_t per_block = static_cast<int64_t>(p.threads) * p.vec, n = facts.R * facts.C;
    g.x = static_cast<unsigned>(std::clamp<int64_t>((n + per_block - 1) / per_block, 1, (int64_t{1} << 31) - 1));
    return g;
  }
  int64_t per_block = static_cast<int64_t>(p.threads) * p.unroll * p.vec;
  // Phase-shifted rows span up to vec - 1 elements more (they start at the aligned vector).
  const int64_t span = facts.C + (p.col_vec ? p.vec - 1 : 0);
  int64_t bx = std::max<int64_t>(1, (span + per_block - 1) / per_block);
  const int64_t resident = static_cast<int64_t>(dev.sm_count) * std::max(1, dev.max_threads_per_sm / p.threads);
  // Full reductions: one resident wave (each warp adds one atomic). Pointwise: many waves.
  int64_t cap = plan.shape.category == KernelCategory::Full ? resident : int64_t{1} << 30;
  bx = std::min(bx, cap);
  // Rows in flight (row_unroll): a block's step takes row_unroll consecutive rows of its pass
  // (blockIdx.x, see write_flat; no loop over passes, so a block per pass), its columns 32-bit.
  if (p.row_unroll > 1 && span >= (int64_t{1} << 31) - per_block)
    throw Error("kernel " + plan.name + " (" + p.str() + "): rows of " + std::to_string(facts.C) + " elements" +
                " exceed the 32-bit columns of row_unroll (pin row_unroll=1)");
  const int64_t groups = (facts.R + p.row_unroll - 1) / std::max(1, p.row_unroll);
  int64_t by = std::clamp<int64_t>(groups, 1, 65535);
  // Full reductions over rows (a slice of a wider tensor): the wave spreads over the rows.
  by = std::min(by, std::max<int64_t>(1, (plan.shape.category == KernelCategory::Full ? resident : resident * 8) / bx));
  g.x = static_cast<unsigned>(bx);
  g.y = static_cast<unsigned>(by);
  return g;
}

int outer_kept_run(const LaunchFacts& facts, int k, int split, int64_t& hk, bool* ended_early) {
  hk = 1;
  int d = split;
  while (d > 0 && (facts.dims[d - 1] == 1 || facts.operands[k].strides[d - 1] == hk)) hk *= facts.dims[--d];
  // Every operand's part of dims [lo, split): one stride (its dims of size > 1 all broadcast, or
  // none, each the next one's stride times its size).
  auto linear_from = [&](int lo) {
    for (const OperandFacts& o : facts.operands) {
      int dims = 0, varying = 0;
      bool chained = true;
      int64_t want = -1;
      for (int e = split - 1; e >= lo; --e) {
        if (facts.dims[e] == 1) continue;
        ++dims;
        varying += o.strides[e] != 0;
        if (want >= 0 && o.strides[e] != want) chained = false;
        want = o.strides[e] * facts.dims[e];
      }
      if (varying > 0 && (varying < dims || !chained)) return false;
    }
    return true;
  };
  const int contiguous = d;
  while (d < split - 1 && !linear_from(d)) hk /= facts.dims[d++];
  if (ended_early) *ended_early = d != contiguous;
  return d;
}

int64_t outer_inner_kept(const KernelPlan& plan, const LaunchFacts& facts) {
  // The first column input's run (outer_kept_run).
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    if (plan.operands[k].is_output || plan.operands[k].access != Access::Full) continue;
    int64_t hk = 1;
    outer_kept_run(facts, static_cast<int>(k), plan.shape.split, hk);
    return hk;
  }
  return std::max<int64_t>(facts.R, 1);
}

int64_t outer_phased_tiles(const KernelPlan& plan, const LaunchFacts& facts, int64_t tile) {
  const int64_t hk = std::max<int64_t>(1, outer_inner_kept(plan, facts));
  return facts.R / hk * ((hk + tile - 1) / tile);
}

bool fits_index32(const LaunchFacts& facts) {
  constexpr int64_t kDomain = int64_t{1} << 30, kOffset = (int64_t{1} << 31) - 1;
  int64_t elems = 1;
  for (int64_t d : facts.dims) {
    if (d > kDomain) return false;
    elems *= std::max<int64_t>(d, 1);
    if (elems > kDomain) return false;
  }
  for (const OperandFacts& of : facts.operands) {
    int64_t off = 0;
    for (size_t d = 0; d < facts.dims.size(); ++d) {
      const int64_t s = of.strides[d] < 0 ? -of.strides[d] : of.strides[d];
      if (facts.dims[d] > 1 && s > kOffset / (facts.dims[d] - 1)) return false;
      off += (std::max<int64_t>(facts.dims[d], 1) - 1) * s;
      if (off > kOffset) return false;
    }
  }
  return true;
}

int64_t transpose_tiles(const KernelPlan& plan, const LaunchFacts& facts) {
  const TileDims& t = plan.shape.tile;
  const auto& p = plan.params;
  if (p.tile_rows < 1 || p.tile_cols < 1) throw Error("kernel " + plan.name + " is not a transpose plan");
  int64_t rows = 1, cols = 1, batch = 1;
  for (int d = 0; d < static_cast<int>(facts.dims.size()); ++d) {
    if (d >= t.row_lo && d < t.row_hi) rows *= facts.dims[d];
    else if (d >= t.col_lo && d < t.col_hi) cols *= facts.dims[d];
    else if (t.reduced_lo < 0 || d < t.reduced_lo) batch *= facts.dims[d];  // reduced dims: looped in each tile
  }
  if (tile_reduces_all(t)) return batch;
  const int64_t row_tiles = batch * ((rows + p.tile_rows - 1) / p.tile_rows);
  return tile_reduces_cols(t) ? row_tiles : row_tiles * ((cols + p.tile_cols - 1) / p.tile_cols);
}

int64_t kept_tile_splits(int64_t chunks, int64_t tiles, int sm_count) {
  constexpr int64_t kShare = 8, kBlocksPerSM = 2;
  tiles = std::max<int64_t>(tiles, 1);
  return std::max(chunks / (2 * kShare), std::min(chunks / kShare, (kBlocksPerSM * sm_count + tiles - 1) / tiles));
}

int64_t transpose_reduced_chunks(const KernelPlan& plan, const LaunchFacts& facts) {
  const TileDims& t = plan.shape.tile;
  int64_t cols = 1, rows = 1, other = 1;
  for (int d = std::max(t.reduced_lo, 0); d < static_cast<int>(facts.dims.size()); ++d)
    (d >= t.col_lo && d < t.col_hi ? cols : d >= t.row_lo && d < t.row_hi ? rows : other) *= facts.dims[d];
  const int64_t chunks = other * ((cols + plan.params.tile_cols - 1) / plan.params.tile_cols);
  return tile_reduces_all(t) ? chunks * ((rows + plan.params.tile_rows - 1) / plan.params.tile_rows) : chunks;
}

GridScratch grid_scratch(const KernelPlan& plan, const LaunchFacts& facts, const Grid& g, int bytes_per_cell) {
  GridScratch s;
  if (plan.shape.category == KernelCategory::Transpose && plan.shape.tile.reduced_lo >= 0 && g.y > 1) {
    const TileDims& t = plan.shape.tile;
    const int64_t tiles = transpose_tiles(plan, facts);
    s.counters = (tiles + 3) / 4 * 4;  // 16-byte aligned partials
    // Cells a tile: one (rows reduced too), a row each (columns reduced), else an element each.
    const int64_t cells = tile_reduces_all(t)    ? 1
                          : tile_reduces_cols(t) ? plan.params.tile_rows
                                                 : int64_t{plan.params.tile_rows} * plan.params.tile_cols;
    s.bytes = s.counters * 4 + int64_t{g.y} * tiles * cells * bytes_per_cell;
    return s;
  }
  if (plan.shape.category == KernelCategory::Outer && g.y > 1) {
    s.counters = (int64_t{g.x} + 3) / 4 * 4;  // 16-byte aligned partials
    s.bytes = s.counters * 4 + int64_t{g.y} * facts.R * bytes_per_cell;
  } else if (plan.shape.category == KernelCategory::Inner && plan.params.row_split > 1) {
    s.counters = (2 + int64_t{g.x} / plan.params.row_split + 3) / 4 * 4;
    s.bytes = s.counters * 4 + int64_t{g.x} * bytes_per_cell;
  }
  return s;
}

int occupancy_blocks(const DeviceInfo& dev, int threads, int registers, int smem) {
  int warps = (threads + 31) / 32;
  int by_threads = dev.max_threads_per_sm / std::max(1, threads);
  // Registers are allocated per warp in chunks of 256.
  int regs_per_warp = ((std::max(registers, 1) * 32 + 255) / 256) * 256;
  int by_regs = dev.regs_per_sm / std::max(1, regs_per_warp * warps);
  int by_smem = smem > 0 ? dev.smem_per_sm / (smem + 1024) : dev.max_blocks_per_sm;
  return std::max(0, std::min({dev.max_blocks_per_sm, by_threads, by_regs, by_smem}));
}

}  // namespace solder
