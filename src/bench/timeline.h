#pragma once
// What a profiled run recorded: kernel intervals on the GPU and host intervals (launch,
// argument packing, cache lookups), in µs from a common origin. trace.h turns it into a
// chrome trace; profile_table.h into per-kernel and per-category tables.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace solder::bench {

struct LaunchShape {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  unsigned smem_bytes = 0;  // dynamic shared memory
  std::string str() const;  // "grid 264x1x1 block 256x1x1" (+ " smem 4096")
  bool operator==(const LaunchShape&) const = default;
};

struct KernelInterval {
  std::string name;  // Solder kernels: solder_<cat>_..., see kernel_category.h
  double start_us = 0, dur_us = 0;
  LaunchShape shape;
  int registers = -1;      // per thread, from ptxas; -1 unknown
  int spill_bytes = 0;
  double occupancy = -1;   // active warps / max warps per SM, 0..1; -1 unknown
  uint64_t bytes = 0;      // bytes the launch moved (0 unknown)
  int stream = 0;
};

struct HostInterval {
  std::string name;
  double start_us = 0, dur_us = 0;
  int thread = 0;
};

struct Timeline {
  std::vector<KernelInterval> kernels;
  std::vector<HostInterval> host;
  double wall_us = 0;  // wall time of the profiled region (unprofiled run where possible)
};

}  // namespace solder::bench
