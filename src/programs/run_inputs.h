#pragma once
// Concrete inputs for running a fusion outside a framework (`solder run`, `solder bench`).
// Shapes come from three places, in this order of authority: an input's explicit shape, a
// size symbol's explicit value, and the sizes other inputs' shapes imply. Inputs whose dims
// are all constants need nothing.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "solder/fusion.h"
#include "solder/host_tensor.h"

namespace solder {

// One concrete shape per input, in input order. Throws solder::Error naming the input and dim
// when a size is unbound, disagrees, or `shapes` names something that is not an input.
std::vector<std::vector<int64_t>> resolve_input_shapes(const Fusion& f,
                                                       const std::map<std::string, std::vector<int64_t>>& shapes,
                                                       const Bindings& sizes);

// Deterministic random inputs of those shapes (input i uses seed + i), in input order.
// Floating inputs are uniform in [-2, 2) — never all zeros, which would hide wrong indexing.
std::vector<HostTensor> make_random_inputs(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes,
                                           uint64_t seed);

}  // namespace solder
