#pragma once
// The fusion y = x (one dtype, one rank, symbolic sizes): compiled as a pointwise kernel it
// materializes any strided view contiguous, or writes into a strided destination (cat).
#include <cstddef>

#include "solder/fusion.h"

namespace solder {

Fusion make_copy_fusion(DType t, size_t rank);

}  // namespace solder
