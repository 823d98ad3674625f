#pragma once
// The compile driver for one kernel segment at one launch signature, in order:
//   facts (sizes, strides, alignment: kernel_facts) -> the registered scheduler that takes the
//   segment -> its candidate plans, best first (validated) -> codegen -> NVRTC with ptxas's
//   report (memory + disk cache) -> the first candidate that does not spill.
// A spill leads to the next candidate, never to a refusal: where every candidate spills, the
// one that spills least runs, and says so. Runs without a GPU (NVRTC + ptxas only), so CI
// checks every generated kernel; the executor only loads and launches what this produced.
#include <memory>
#include <string>
#include <vector>

#include "codegen/kernel_codegen.h"
#include "runtime/device_info.h"
#include "runtime/kernel_cache.h"
#include "schedule/launch_grid.h"
#include "schedule/scheduler.h"

namespace solder {

struct CompileOptions {
  // Parts that pin the chosen scheduler's first plan (`--plan`, KernelParams' text form, e.g.
  // "threads_per_row=256,prefetch=0" or "max_registers=128"); empty: the scheduler's choice.
  std::string plan;
};

struct PreparedKernel {
  std::string scheduler;                 // the registered scheduler that took the segment
  std::vector<std::string> passed_over;  // schedulers before it, each with why it could not
  bool pinned = false;                   // the plan named its scheduler (scheduler=NAME)
  KernelPlan plan;
  KernelSource source;
  std::shared_ptr<const CompiledKernel> compiled;
  std::string cache_key;
  std::vector<std::string> rejected;  // candidates before the chosen one, each with why
  bool spills = false;  // every candidate spilled; this one least (slower, but it runs)
  int compiles = 0;     // NVRTC compiles this call ran (0 when the caches had every plan)
};

// `ks`: analyze_kernel of the segment, computed once by the caller for facts and plans alike.
PreparedKernel prepare_kernel(const SegmentedFusion& sf, int segment_index, const KernelShape& ks,
                              const LaunchFacts& facts, const DeviceInfo& dev, KernelCache& cache,
                              const CompileOptions& options = {});

// Facts of kernel segment `si` for operands (parallel to analyze_kernel's) of these shapes,
// strides and addresses (or alignment classes). The domain's sizes come from the operands.
// May refine `ks` for these layouts (see make_facts): pass the same `ks` to prepare_kernel.
// `b`: the launch's sizes, which a segment that reads pads or windows of symbolic bounds needs
// (LaunchFacts::bounds; an error without them).
LaunchFacts kernel_facts(const SegmentedFusion& sf, int segment_index, KernelShape& ks,
                         const std::vector<std::vector<int64_t>>& shapes, const std::vector<std::vector<int64_t>>& strides,
                         const std::vector<uint64_t>& addresses, const Bindings* b = nullptr);
// Facts for contiguous operands at aligned addresses, at the sizes `b` binds.
LaunchFacts contiguous_facts(const SegmentedFusion& sf, int segment_index, const Bindings& b);

// Resident blocks per SM of a prepared kernel, from its ptxas report.
int resident_blocks(const DeviceInfo& dev, const PreparedKernel& pk);

// The kernel's parameter block for these facts (codegen/param_layout.h), pointers left 0.
std::vector<int64_t> pack_params(const LaunchFacts& facts);

}  // namespace solder
