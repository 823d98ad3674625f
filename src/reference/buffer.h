#pragma once
// The reference executor's value representation: a dense row-major array of doubles, each
// already rounded to its value's dtype. Doubles hold every narrow format and i32 exactly;
// i64 beyond 2^53 loses precision (acceptable for an oracle of float kernels).
#include <cstdint>
#include <string>
#include <vector>

#include "solder/dtype.h"

namespace solder::ref {

using Sizes = std::vector<int64_t>;

struct Buf {
  Sizes shape;
  std::vector<double> data;
};

int64_t numel(const Sizes& shape);
Sizes row_major_strides(const Sizes& shape);
std::string sizes_str(const Sizes& shape);

// Right-aligned broadcast of `in` to `shape` (size-1 dims stretch), as a dense copy.
// Throws solder::Error if the shapes do not broadcast.
std::vector<double> broadcast_to(const Buf& in, const Sizes& shape);
// The same values without a copy where `in` already has `shape`; else broadcast into scratch.
const double* broadcast_view(const Buf& in, const Sizes& shape, std::vector<double>& scratch);

// Rounds every element to dtype t in place.
void round_all(std::vector<double>& v, DType t);

}  // namespace solder::ref
