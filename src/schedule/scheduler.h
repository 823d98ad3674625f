#pragma once
// Turns a kernel segment plus run-time facts (sizes, strides, alignment) into a KernelPlan.
// Heuristics read the device's properties; every knob is explained where it is chosen
// (scheduler.cpp). `attempt` > 0 asks for the next more conservative plan after ptxas
// reported spills: a spilling kernel is never launched.
#include <cstdint>
#include <vector>

#include "runtime/device_info.h"
#include "schedule/kernel_plan.h"

namespace solder {

struct OperandFacts {
  DType dtype;
  std::vector<int64_t> strides;  // per kernel dim (kernel order), 0 where broadcast
  uint64_t address = 0;
};

struct LaunchFacts {
  std::vector<int64_t> dims;  // kernel order
  int64_t R = 1, C = 1;
  std::vector<OperandFacts> operands;  // parallel to KernelShape::operands
  std::vector<int64_t> ld;             // per operand: row stride for Row/Full access
};

// Fills `facts.dims/R/C` from the evaluated domain, and each operand's kernel-order strides
// from its shape/strides (right-aligned; reduction outputs without keepdim map to kept dims).
LaunchFacts make_facts(const Fusion& f, const Segment& s, const KernelShape& ks, const std::vector<int64_t>& domain,
                       const std::vector<std::vector<int64_t>>& operand_shapes,
                       const std::vector<std::vector<int64_t>>& operand_strides, const std::vector<uint64_t>& addresses);

// Returns false when no more conservative plan exists.
bool schedule_kernel(const Fusion& f, const Segment& s, int segment_index, const KernelShape& ks, LaunchFacts& facts,
                     const DeviceInfo& dev, int attempt, KernelPlan& out);

struct Grid {
  unsigned x = 1, y = 1, block = 1, smem = 0;  // smem: dynamic shared memory bytes
  unsigned cluster = 1;                         // blocks per cluster along x (KernelParams::cluster)
};
// `resident_per_sm`: blocks of this kernel an SM holds at once (from its ptxas registers);
// `resident_clusters`: clusters of KernelParams::cluster blocks the device runs at once (the
// driver's count; 0: estimated from resident_per_sm).
Grid launch_grid(const KernelPlan& plan, const LaunchFacts& facts, const DeviceInfo& dev, int resident_per_sm,
                 int resident_clusters = 0);

// Estimated registers per thread of a persistent inner kernel holding `batch` vectors of `vec`
// (checked against ptxas): `held_per_element` registers per held element, `input_bytes`
// loaded per element ahead.
int estimate_registers(int batch, int vec, double held_per_element, int input_bytes);

}  // namespace solder
