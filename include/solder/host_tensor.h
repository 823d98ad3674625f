#pragma once
// Host tensors (any strides) and exact element conversions. Used by the reference executor,
// the CLI and tests; device results are copied into HostTensors to be compared.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "solder/dtype.h"

namespace solder {

struct HostTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements; may be 0 (broadcast) or non-contiguous
  std::shared_ptr<std::vector<std::byte>> storage;
  int64_t offset = 0;  // in elements, into storage

  static HostTensor empty(DType t, std::vector<int64_t> shape);  // contiguous, zero-filled
  int64_t numel() const;
  int rank() const { return static_cast<int>(shape.size()); }
  bool is_contiguous() const;
  std::byte* data();  // element 0 (after offset)
  const std::byte* data() const;
  // Logical (row-major) index -> value, honoring strides; set() rounds to dtype.
  double get(int64_t linear) const;
  void set(int64_t linear, double v);
  HostTensor contiguous() const;  // dense copy in the same dtype
};

// Exact conversions between doubles and each dtype's bit pattern. Rounding to nearest even;
// fp8 follows the OCP spec as PyTorch does: e4m3fn has no Inf and overflows to NaN, e5m2
// overflows to Inf; NaN stays NaN. Integers truncate toward zero like a C cast; bool is x != 0.
double load_element(DType t, const std::byte* p);
void store_element(DType t, double v, std::byte* p);
// Rounds v to the nearest value representable in t (e.g. to f16 precision), as a double.
double round_to(DType t, double v);

// Random values in [lo, hi) (integers: uniform in the range; bool: coin flip), deterministic.
HostTensor random_tensor(DType t, std::vector<int64_t> shape, uint64_t seed, double lo = -2.0, double hi = 2.0);

}  // namespace solder
