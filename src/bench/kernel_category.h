#pragma once
// Kernel category from a kernel's name, as Inductor's profiler does it (seed 002): Solder names
// its kernels solder_<cat>_<...> with cat in {pw, red, norm, mm, copy}. Library kernels are
// recognised by common name fragments (gemm, cutlass, memcpy ...).
#include <string>
#include <vector>

namespace solder::bench {

// One of: "pointwise", "reduction", "persistent", "matmul/library", "copy", "other".
std::string kernel_category(const std::string& kernel_name);
// Every category in report order.
const std::vector<std::string>& kernel_categories();

}  // namespace solder::bench
