#pragma once
// `solder explain`: what Solder makes of a program, as text: the verified IR, each value's type
// and shape (concrete when sizes are bound), the segments, and with sizes the steps a run takes
// (Executor::explain: scheduler, plan, rejected candidates, ptxas, occupancy, views and copies).
#include <optional>
#include <string>

#include "solder/fusion.h"

namespace solder {

struct ExplainOptions {
  std::optional<Bindings> sizes;  // set when the caller bound sizes (--shape / --size)
  std::string plan;               // ExecutorOptions::plan (--plan)
  bool contiguous_outputs = false;  // ExecutorOptions::contiguous_outputs (--contiguous-outputs)
};

// Verifies `f` (throws solder::Error) and returns the report.
std::string explain_fusion(const Fusion& f, const ExplainOptions& opts = {});

}  // namespace solder
