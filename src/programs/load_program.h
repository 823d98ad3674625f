#pragma once
// What the command line accepts as a program: a .fusion file, or the name of a workload
// (examples/<name>.fusion in the source tree, else the C++ builder of that name).
#include <string>

#include "solder/fusion.h"

namespace solder {

// Throws solder::Error naming the argument and the known workloads when neither exists.
Fusion load_program(const std::string& file_or_workload);

}  // namespace solder
