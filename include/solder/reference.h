#pragma once
// The CPU reference executor: runs any fusion on host tensors, the oracle for every GPU test.
// Every value is computed in double and rounded to its dtype (as the GPU rounds each op's
// result); reductions accumulate in double. Views and cat produce dense copies here.
#include <vector>

#include "solder/fusion.h"
#include "solder/host_tensor.h"

namespace solder {

// Inputs in the fusion's input order, any strides. Returns outputs in output order
// (contiguous). Throws solder::Error on a shape/dtype mismatch, naming the input.
std::vector<HostTensor> run_reference(const Fusion& f, const std::vector<HostTensor>& inputs);

}  // namespace solder
