#pragma once
// The project's benchmark workloads (DESIGN.md, "Workloads") as C++ builders. examples/ holds
// the same programs as text; a test keeps the two identical. Sizes the sweeps vary are symbols
// (B, H, N); the rest are constants.
#include <string>
#include <vector>

#include "solder/fusion.h"

namespace solder {

std::vector<std::string> workload_names();
// Throws solder::Error listing the known names when `name` is not one of them.
Fusion make_workload(const std::string& name);

}  // namespace solder
