#pragma once
// Two-operand einsum lowered to primitives, as framework frontends hand it to a fusion
// compiler (seed 003): transposes and reshapes around one matmul. A contracted index whose
// size is 1 in one operand and not the other (an einsum broadcast) cannot feed a matmul
// directly; those cases lower to mul + sum over the contracted axes instead.
#include <string>

#include "solder/fusion.h"

namespace solder {

// `equation` like "bij,jk" (implicit output: the indices seen once, alphabetical) or
// "bijk,bklj->bli"; spaces are ignored. Throws solder::Error on a malformed equation or
// mismatched sizes.
Tensor einsum(const std::string& equation, const Tensor& a, const Tensor& b);

}  // namespace solder
