#pragma once
// The reference executor's value representation: a dense row-major array of doubles, each
// already rounded to its value's dtype. Doubles hold every narrow format and i32 exactly;
// i64 beyond 2^53 loses precision (acceptable for an oracle of float kernels).
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "solder/dtype.h"

namespace solder::ref {

using Sizes = std::vector<int64_t>;

// Storage of the big arrays, recycled: the reference makes a new array for every op's result
// (up to hundreds of MB in the GPU tests), and fresh memory costs a page fault per 4 KB, the
// pages zeroed by the kernel under the process's memory-map lock (a third of a W1 reference
// run on 2 cores). Blocks of 1 MB and more go back to a process-wide cache (the latest 2 GB)
// when freed and are handed out again for the same size class. Doubles(n) leaves its elements
// uninitialized (zero-filling each result on one thread was 8 % of a run): every user writes
// every element, or asks for zeros with Doubles(n, 0.0).
void* take_block(size_t bytes);
void give_block(void* p, size_t bytes);
template <class T>
struct Recycling {
  using value_type = T;
  Recycling() = default;
  template <class U>
  Recycling(const Recycling<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(take_block(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { give_block(p, n * sizeof(T)); }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    if constexpr (sizeof...(A) == 0) ::new (static_cast<void*>(p)) U;  // default-initialized
    else ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  friend bool operator==(const Recycling&, const Recycling&) { return true; }
};
using Doubles = std::vector<double, Recycling<double>>;

struct Buf {
  Sizes shape;
  Doubles data;
};

int64_t numel(const Sizes& shape);
Sizes row_major_strides(const Sizes& shape);
std::string sizes_str(const Sizes& shape);

// Right-aligned broadcast of `in` to `shape` (size-1 dims stretch), as a dense copy.
// Throws solder::Error if the shapes do not broadcast.
Doubles broadcast_to(const Buf& in, const Sizes& shape);
// The same values without a copy where `in` already has `shape`; else broadcast into scratch.
const double* broadcast_view(const Buf& in, const Sizes& shape, Doubles& scratch);

// Rounds every element to dtype t in place.
void round_all(Doubles& v, DType t);

}  // namespace solder::ref
