#pragma once
// Where the GPU time of a profiled run went (seed 002's breakdown): one row per kernel name
// (total time, share, calls, GB/s, registers, spills, occupancy, launch shape), a breakdown by
// kernel category, and % GPU busy = sum of kernel time / wall time. A low busy % means host
// overhead dominates (CUDA graphs or fewer launches help); above 100% means kernels overlapped
// or the profiled kernel times ran longer than the unprofiled wall clock.
#include <string>
#include <vector>

#include "bench/timeline.h"

namespace solder::bench {

struct KernelRow {
  std::string name, category;
  double total_us = 0, avg_us = 0;
  double share_pct = 0;  // of all kernel time
  int calls = 0;
  double gbs = 0;         // bytes / time over the calls that reported bytes; 0 unknown
  int registers = -1;
  int spill_bytes = 0;
  double occupancy = -1;
  std::string shape;      // the most common launch shape (+ how many others)
};

struct CategoryRow {
  std::string category;
  double total_us = 0, share_pct = 0;
  int kernels = 0, calls = 0;  // distinct kernel names, launches
};

struct Profile {
  std::vector<KernelRow> kernels;       // by total time, largest first
  std::vector<CategoryRow> categories;  // kernel_categories() order, empty ones left out
  double kernel_us = 0, wall_us = 0;
  double gpu_busy_pct = 0;  // 0 when wall time is unknown
};

Profile build_profile(const Timeline& t);
std::string format_profile(const Profile& p);  // terminal tables + the busy line

}  // namespace solder::bench
