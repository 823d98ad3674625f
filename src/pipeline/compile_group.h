#pragma once
// Horizontal fusion, the compile driver's half: the group kernel (codegen/kernel_group.h) of a
// prepared member kernel, through the same caches, and the bytes of kernel parameters one
// launch may take on this device.
#include "pipeline/compile_kernel.h"

namespace solder {

struct PreparedGroup {
  KernelSource source;
  std::shared_ptr<const CompiledKernel> compiled;
  std::string cache_key;
  int compiles = 0;
};

PreparedGroup prepare_group_kernel(const SegmentedFusion& sf, const PreparedKernel& member, int members,
                                   const DeviceInfo& dev, KernelCache& cache);

// 32764 bytes where the driver (12.1+) and device (Volta+) take large parameter blocks, else
// 4096. Without a GPU: the profile's (Hopper, a current driver).
int kernel_param_limit(const DeviceInfo& dev);

}  // namespace solder
