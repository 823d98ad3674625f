#pragma once
// Plan -> source -> cubin for one kernel segment, with the spill check: when ptxas reports
// spills the scheduler is asked for a more conservative plan and the kernel is rebuilt. Runs
// without a GPU (NVRTC + ptxas only), so CI checks every generated kernel.
#include <memory>
#include <string>
#include <vector>

#include "codegen/kernel_codegen.h"
#include "runtime/device_info.h"
#include "runtime/kernel_cache.h"
#include "schedule/scheduler.h"

namespace solder {

struct PreparedKernel {
  KernelPlan plan;
  KernelSource source;
  std::shared_ptr<const CompiledKernel> compiled;
  std::string cache_key;
  std::vector<std::string> spilled;  // the plans tried first, with the bytes each spilled
  int compiles = 0;  // NVRTC compiles this call ran (0 when the memory or disk cache had every plan)
};

PreparedKernel prepare_kernel(const SegmentedFusion& sf, int segment_index, LaunchFacts& facts, const DeviceInfo& dev,
                              KernelCache& cache);

// Resident blocks per SM for a kernel (threads, registers and shared memory limits).
int occupancy_blocks(const DeviceInfo& dev, int threads, int registers, int smem_bytes);
// The same for a prepared kernel, from its ptxas report.
int resident_blocks(const DeviceInfo& dev, const PreparedKernel& pk);

// Facts for contiguous inputs at 256-byte aligned addresses: what `solder explain` and the
// CPU tests plan against when no tensors exist.
LaunchFacts contiguous_facts(const SegmentedFusion& sf, int segment_index, const Bindings& b);

}  // namespace solder
