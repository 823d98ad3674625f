#pragma once
// Renders a KernelPlan as CUDA C++ through one template per category. The kernel takes one
// by-value Params struct whose fields are all 8 bytes, so the host packs it as an int64 array:
//   R, C, dims[8], ptr[n], ld[n], stride[n][8], scratch
// (n = number of operands). Parameters that shape registers (vec, batch, threads) are
// compile-time constants in the source; sizes and strides are run-time values.
#include <string>
#include <vector>

#include "schedule/kernel_plan.h"

namespace solder {

constexpr int kMaxKernelDims = 8;

struct KernelSource {
  std::string name;
  std::string source;
  // Full reductions: floats of scratch the kernel expects, initialized to these bit patterns
  // once; the last block to finish resets them, so no memset is needed between launches.
  std::vector<unsigned> scratch_init;
};

KernelSource generate_kernel(const Fusion& f, const Segment& s, const KernelPlan& plan);

}  // namespace solder
