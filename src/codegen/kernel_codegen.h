#pragma once
// Renders a KernelPlan as CUDA C++ through its category's template. The kernel takes one
// by-value Params struct (codegen/param_layout.h). Parameters that shape registers (vec,
// batch, threads) are compile-time constants in the source; sizes and strides are run-time
// values.
#include <string>
#include <vector>

#include "codegen/param_layout.h"
#include "schedule/kernel_plan.h"

namespace solder {

struct KernelSource {
  std::string name;
  std::string source;
  // Full reductions: floats of scratch the kernel expects, initialized to these bit patterns
  // once; the last block to finish resets them, so no memset is needed between launches.
  std::vector<unsigned> scratch_init;
  // Outer reductions in the grid form: bytes of partials per kept column and row split; inner
  // plans with split rows: per block. The launch's scratch (zeroed counters, then the partials)
  // is sized from the grid (grid_scratch); the kernel resets its counters.
  int scratch_per_cell = 0;
};

KernelSource generate_kernel(const Fusion& f, const Segment& s, const KernelPlan& plan);

}  // namespace solder
