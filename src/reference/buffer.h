#pragma once
// The reference executor's value representation: a dense row-major array of doubles, each
// already rounded to its value's dtype. Doubles hold every float format and bool exactly.
// Integers (i32, i64) are held exactly as the int64's bits in each double's slot, so i64
// beyond 2^53 stays exact and integer arithmetic wraps as torch's does (see int_at).
#include <cstddef>
#include <cstdint>
#include <cstring>
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
  DType dtype = DType::F64;  // set by the executor; says how `data` holds values
};

inline bool holds_int(DType t) { return t == DType::I32 || t == DType::I64; }
inline double int_bits(int64_t v) {
  double d;
  std::memcpy(&d, &v, sizeof d);
  return d;
}
inline int64_t bits_int(double d) {
  int64_t v;
  std::memcpy(&v, &d, sizeof v);
  return v;
}
// Two's-complement wrap to t's width (i32 keeps the low 32 bits), as torch's integer ops do.
inline int64_t wrap_int(DType t, uint64_t v) {
  return t == DType::I32 ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v))) : static_cast<int64_t>(v);
}
// A double truncated toward zero to int64, clamped to its range (NaN -> 0).
int64_t trunc_int(double v);
// Element i as a double (integers converted) / as an integer (floats truncated, clamped).
double value_at(const Buf& b, int64_t i);
int64_t int_at(const Buf& b, int64_t i);

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
