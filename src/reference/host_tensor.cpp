// HostTensor: a typed view (shape, strides, offset) over shared byte storage.
#include "solder/host_tensor.h"

#include <algorithm>
#include <string>

#include "ir/limits.h"
#include "solder/error.h"

namespace solder {

namespace {
std::string shape_text(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// Storage offset (in elements, before `offset`) of the row-major element `linear`.
int64_t strided_index(const HostTensor& t, int64_t linear) {
  if (t.strides.size() != t.shape.size())
    throw Error("HostTensor: " + std::to_string(t.strides.size()) + " strides for shape " + shape_text(t.shape));
  if (linear < 0 || linear >= t.numel())
    throw Error("HostTensor: element " + std::to_string(linear) + " is out of range for shape " + shape_text(t.shape));
  int64_t off = 0;
  for (int d = t.rank() - 1; d >= 0; --d) {
    off += (linear % t.shape[d]) * t.strides[d];
    linear /= t.shape[d];
  }
  return off;
}
}  // namespace

HostTensor HostTensor::empty(DType t, std::vector<int64_t> shape) {
  HostTensor r;
  r.dtype = t;
  r.shape = std::move(shape);
  r.strides.assign(r.shape.size(), 0);
  const int64_t n = checked_numel(r.shape, "HostTensor " + shape_text(r.shape));
  check_tensor_bytes(n, dtype_size(t), "a host tensor " + std::string(dtype_name(t)) + shape_text(r.shape));
  int64_t st = 1;
  for (int d = r.rank() - 1; d >= 0; --d) {
    r.strides[d] = st;
    // Bounded by checked_numel, unless a zero dim made the count 0 (f32[2^62, 28, 0]): then
    // no stride is ever used and an overflowing partial product stops at 0.
    if (__builtin_mul_overflow(st, r.shape[d], &st)) st = 0;
  }
  r.storage = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(n * dtype_size(t)));
  return r;
}

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (auto s : shape)
    if (s < 0 || __builtin_mul_overflow(n, s, &n)) return checked_numel(shape, "HostTensor " + shape_text(shape));  // throws
  return n;
}

bool HostTensor::is_contiguous() const {
  int64_t want = 1;
  for (int d = rank() - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != want) return false;  // size-1 dims may have any stride
    if (__builtin_mul_overflow(want, shape[d], &want)) return true;  // a zero dim: nothing to lay out
  }
  return true;
}

std::byte* HostTensor::data() { return storage ? storage->data() + offset * dtype_size(dtype) : nullptr; }
const std::byte* HostTensor::data() const {
  return storage ? storage->data() + offset * dtype_size(dtype) : nullptr;
}

double HostTensor::get(int64_t linear) const {
  return load_element(dtype, data() + strided_index(*this, linear) * dtype_size(dtype));
}

void HostTensor::set(int64_t linear, double v) {
  store_element(dtype, v, data() + strided_index(*this, linear) * dtype_size(dtype));
}

HostTensor HostTensor::contiguous() const {
  HostTensor r = empty(dtype, shape);
  const int sz = dtype_size(dtype);
  if (is_contiguous()) {
    std::copy_n(data(), numel() * sz, r.data());
    return r;
  }
  // Byte copies keep what a double round trip might not (NaN payloads, i64 beyond 2^53).
  for (int64_t i = 0, n = numel(); i < n; ++i)
    std::copy_n(data() + strided_index(*this, i) * sz, sz, r.data() + i * sz);
  return r;
}

}  // namespace solder
