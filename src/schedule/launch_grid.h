#pragma once
// Launch geometry of a plan at given sizes: blocks, threads, dynamic shared memory, cluster.
#include "runtime/device_info.h"
#include "schedule/launch_facts.h"

namespace solder {

struct Grid {
  unsigned x = 1, y = 1, block = 1, smem = 0;  // smem: dynamic shared memory bytes
  unsigned cluster = 1;                         // blocks per cluster along x (KernelParams::cluster)
};
// `resident_per_sm`: blocks of this kernel an SM holds at once (from its ptxas registers);
// `resident_clusters`: clusters of KernelParams::cluster blocks the device runs at once (the
// driver's count; 0: estimated from resident_per_sm). Throws where the plan cannot cover rows
// of these sizes (a persistent plan's batches must reach the row's end).
Grid launch_grid(const KernelPlan& plan, const LaunchFacts& facts, const DeviceInfo& dev, int resident_per_sm,
                 int resident_clusters = 0);

// The kept dims' inner run of an outer plan: input k's trailing kept dims at unit stride, as far
// as every operand's part of them is one stride (an output in the declared layout of a permuted
// input's kept dims); its first kernel dim, `hk` its size; `ended_early`: whether an operand's
// stride ended it before the input's contiguous run (plans then need KernelParams::kept_run).
// The device's outer_kept_split and the scheduler's kept_split compute the same.
int outer_kept_run(const LaunchFacts& facts, int k, int split, int64_t& hk, bool* ended_early = nullptr);
// Outer plans: the inner kept run's size HK (from the first column input's strides, as the
// kernel computes it), and the kept tiles of phase-shifted plans (col_vec: tiles of `tile`
// columns inside one outer kept index each).
int64_t outer_inner_kept(const KernelPlan& plan, const LaunchFacts& facts);
int64_t outer_phased_tiles(const KernelPlan& plan, const LaunchFacts& facts, int64_t tile);

// Transpose plans: the tiles of the launch (tile_rows x tile_cols elements of the tile dims, for
// every index of the other dims); each block takes tiles at a stride of the grid.
int64_t transpose_tiles(const KernelPlan& plan, const LaunchFacts& facts);
// Transpose plans whose tile columns are reduced dims (tile_reduces_cols): the column chunks
// (times the row chunks where the rows are reduced too) times the other reduced indices, the
// units a kept tile's splits share out.
int64_t transpose_reduced_chunks(const KernelPlan& plan, const LaunchFacts& facts);
// Tiles of kept dims (grid_split): the most splits of their `chunks` reduced indices for
// `tiles` tiles on `sm_count` SMs (0 where chunks are under 8): shares of 16, or of 8 up to two
// blocks an SM. Each split leaves a cell per tile element and accumulator plane, the bytes a
// reduced index or two reads (H200, call146-147: f16 128 x 256 x 256, 32 tiles: 8 splits of 16
// 44.9 us, 16 of 8 55.4; seed 26 #059, 256 tiles: 3 splits of 42 79.8, 2 of 64 86.6; f16 16 x
// 512 x 512, 128 tiles: 2 splits of 8 24.9, the inner template 33.9).
int64_t kept_tile_splits(int64_t chunks, int64_t tiles, int sm_count);
// Whether 32-bit index math (KernelParams::index32) serves these sizes: the domain under 2^30
// elements (so tile counts, extents and a tile's overhang past them stay under 2^31) and every
// operand's largest element offset under 2^31.
bool fits_index32(const LaunchFacts& facts);

// Scratch of a launch whose blocks leave partials for others (KernelSource::scratch_per_cell):
// `counters` zeroed 32-bit words first, then the partials, `bytes` in all; none for other
// launches. Outer plans in the grid form (Grid::y > 1), as write_outer expects: a counter per
// kept tile, then `bytes_per_cell` per kept column and row split. Inner plans with split rows
// (KernelParams::row_split), as write_inner expects: the next ticket, the blocks finished and a
// counter per row, then `bytes_per_cell` per block. Transpose plans of partial reductions,
// split (Grid::y > 1): a counter per kept tile, then `bytes_per_cell` per split and tile cell
// (a tile element; a tile row where the columns are reduced; one where the rows are too).
struct GridScratch {
  int64_t counters = 0, bytes = 0;
};
GridScratch grid_scratch(const KernelPlan& plan, const LaunchFacts& facts, const Grid& g, int bytes_per_cell);

// Resident blocks per SM for a kernel (threads, registers and shared memory limits).
int occupancy_blocks(const DeviceInfo& dev, int threads, int registers, int smem_bytes);

}  // namespace solder
