#pragma once
// `solder explain`: what Solder makes of a program, as text. Today: the verified IR and each
// value's type and shape (concrete when sizes are bound). Each later stage (segmentation,
// scheduling, generated kernels) adds its own section in explain_plan() in explain.cpp.
#include <optional>
#include <string>

#include "solder/fusion.h"

namespace solder {

struct ExplainOptions {
  std::optional<Bindings> sizes;  // set when the caller bound sizes (--shape / --size)
};

// Verifies `f` (throws solder::Error) and returns the report.
std::string explain_fusion(const Fusion& f, const ExplainOptions& opts = {});

}  // namespace solder
