#pragma once
// The compiler's pipeline, in order, in one place: passes -> segmentation. Scheduling and
// codegen happen per kernel at run time (they need sizes and alignment), in src/exec.
#include "segment/segment.h"

namespace solder {

// Runs every pass (verifying after each) and segments the result. With SOLDER_DEBUG=1 each
// stage logs "solder: after <pass> (<ms> ms)" and the IR to stderr.
SegmentedFusion lower(const Fusion& f);

}  // namespace solder
