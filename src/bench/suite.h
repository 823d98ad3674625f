#pragma once
// The benchmark suites: which workloads at which sizes. A case is a workload name plus size
// bindings; its inputs' shapes follow from the fusion's declared dims.
#include <string>
#include <vector>

#include "solder/fusion.h"

namespace solder::bench {

struct BenchCase {
  std::string name;      // unique, e.g. "w1_layer_norm_fused/B=8192,H=5140"
  std::string workload;  // a workload name (src/ops/workloads.cpp) or a .fusion file
  Bindings sizes;
  bool host_latency = false;  // W4: the figure of merit is host time per call
};

// "default": W1-W5 at the DESIGN shapes. "quick": a few small cases. "norms": the issue-5
// sweep (layer norm / softmax / rms norm over batch x hidden, odd sizes included).
std::vector<BenchCase> suite_cases(const std::string& suite);
std::vector<std::string> suite_names();

// Cases for programs given on the command line: every combination of the size axes, each
// "SYM=v1,v2,..." (e.g. {"B=8192", "H=768,5140"} gives two cases per program).
std::vector<BenchCase> sweep_cases(const std::vector<std::string>& programs, const std::vector<std::string>& axes);

}  // namespace solder::bench
