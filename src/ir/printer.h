#pragma once
// The fusion text format, printing side. One statement per line, inputs first, then every node
// in order (including the casts the builder inserted for promotion), then the outputs:
//
//   fusion ln {
//     input t0: f16[B, H]
//     t1 = cast(t0, dtype=f32)
//     t2, t3 = var_mean(t1, axes=[1], keepdim=true, correction=0)
//     output t3
//   }
//
// A node prints exactly the attributes its OpInfo names, in AttrBit order. Doubles use %.17g
// (inf, -inf, nan spelled out), so parse_fusion(print_fusion(f)) rebuilds f exactly and
// printing that again gives the same text.
#include <string>

#include "solder/fusion.h"

namespace solder {

// Throws solder::Error if a value or the fusion has a name that is not an identifier.
std::string print_fusion(const Fusion& f);

// The right-hand side of one node, "add(t1, t2)", for explanations and error messages.
std::string print_node_call(const Fusion& f, const Node& n);

}  // namespace solder
