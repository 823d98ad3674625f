#pragma once
// One exception type for every user-facing failure: bad input, unsupported op, CUDA errors.
// Messages name the op/operands/file and what was expected.
#include <stdexcept>
#include <string>

namespace solder {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace solder
