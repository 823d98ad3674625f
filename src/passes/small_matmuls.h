#pragma once
#include <cstdint>

#include "solder/fusion.h"

namespace solder {

// Whether a matmul of `macs` multiply-adds (batch x M x N x K, every size known) runs as a
// reduction kernel rather than through cuBLASLt. A GEMM library call has a floor of host and
// GPU time (a launch, a heuristic-chosen kernel sized for large tiles) that a tiny product
// never amortizes; as `sum(a[..., M, 1, K] * b[..., 1, N, K], -1)` it is one kernel of our own,
// which also fuses its operands' views and its consumers. f64 has no cuBLASLt path here, so
// it always takes the reduction (slower than a GEMM at size, but it runs).
bool matmul_as_reduction(DType t, int64_t macs);

// Rewrites the matmuls and linears that matmul_as_reduction picks as broadcast products
// summed over K: f16/bf16 operands multiply and sum in f32 and round once, as a GEMM
// accumulating in f32 does; a linear's bias adds to the f32 sum before that rounding.
Fusion small_matmuls_as_reductions(const Fusion& f);

}  // namespace solder
