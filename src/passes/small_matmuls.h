#pragma once
#include "solder/fusion.h"

namespace solder {

// Whether a matmul of dtype `t` runs as a reduction kernel over its broadcast product,
// `sum(a[..., M, 1, K] * b[..., 1, N, K], -1)`, rather than through cuBLASLt: f64, which has
// no cuBLASLt path here (slower than a GEMM at size, but it runs; it was refused). Tiny
// matmuls of every dtype wait for a device timing (docs/results/2026-12-04e/next/).
bool matmul_as_reduction(DType t);

// Rewrites the matmuls and linears that matmul_as_reduction picks as broadcast products
// summed over K; a linear's bias adds to the sum in the same kernel.
Fusion small_matmuls_as_reductions(const Fusion& f);

}  // namespace solder
