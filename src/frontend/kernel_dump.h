#pragma once
// `solder profile --dump-dir DIR`: each generated kernel as <DIR>/<name>.cu (the exact source
// NVRTC compiled) and <DIR>/<name>.ptxas.txt (registers, spills and the NVRTC + ptxas log), so
// a kernel can be read, diffed or recompiled by hand.
#include <string>
#include <vector>

#include "solder/executor.h"

namespace solder {

// Creates DIR as needed; returns the paths written, in order. Throws solder::Error when a file
// cannot be written.
std::vector<std::string> dump_kernel_sources(const std::vector<KernelSourceInfo>& kernels, const std::string& dir);

}  // namespace solder
