// Element conversions for every dtype: the narrow float formats through one generic
// round-to-nearest-even encoder, integers by C-style truncation with clamping.
#include "reference/convert.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "solder/error.h"
#include "solder/host_tensor.h"

namespace solder {

using namespace float_format;

namespace {
// Out-of-range doubles would make the C++ cast undefined; clamp first, NaN -> 0.
template <class I>
I to_int(double v) {
  if (std::isnan(v)) return 0;
  v = std::trunc(v);
  if (v <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  // For int64 the max converts to 2^63 exactly, so `>=` also catches that unrepresentable value.
  if (v >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

template <class T>
void put(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
template <class T>
T get(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

static_assert(std::numeric_limits<float>::is_iec559, "f32 rounding relies on IEEE float conversion");

// In-range doubles convert natively (IEEE RNE, subnormals). Beyond FLT_MAX the C++ cast is not
// guaranteed, so the generic encoder decides between FLT_MAX and Inf.
float to_f32(double v) {
  if (!(std::fabs(v) > std::numeric_limits<float>::max())) return static_cast<float>(v);
  uint32_t b = encode_float(FloatFormat{8, 23, true}, v);
  float r;
  std::memcpy(&r, &b, sizeof(r));
  return r;
}
}  // namespace

double max_finite(const FloatFormat& f) {
  int top = static_cast<int>(exp_mask(f)) - (f.ieee_specials ? 1 : 0);  // largest finite exponent field
  uint32_t man = f.ieee_specials ? man_mask(f) : man_mask(f) - 1;       // fn: all-ones is NaN
  return std::ldexp(1.0 + std::ldexp(static_cast<double>(man), -f.man_bits), top - bias(f));
}

double decode_float(const FloatFormat& f, uint32_t bits) {
  const int m = f.man_bits;
  bool neg = (bits >> (f.exp_bits + m)) & 1u;
  uint32_t field = (bits >> m) & exp_mask(f);
  uint32_t man = bits & man_mask(f);
  double r;
  if (f.ieee_specials && field == exp_mask(f))
    r = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (!f.ieee_specials && field == exp_mask(f) && man == man_mask(f))
    r = std::numeric_limits<double>::quiet_NaN();
  else if (field == 0)
    r = std::ldexp(static_cast<double>(man), 1 - bias(f) - m);
  else
    r = std::ldexp(static_cast<double>(man | (1u << m)), static_cast<int>(field) - bias(f) - m);
  return neg ? -r : r;
}

namespace {
// Every f16 / bf16 code decoded once (by decode_float): the reference decodes an element at
// every load and every rounding, and the generic decoder's ldexp took most of its time.
const double* decoded16(const FloatFormat& f) {
  static const auto make = [](const FloatFormat& fmt) {
    std::vector<double> t(65536);
    for (uint32_t b = 0; b < 65536; ++b) t[b] = decode_float(fmt, b);
    return t;
  };
  static const std::vector<double> f16 = make(kF16Format), bf16 = make(kBF16Format);
  return &f == &kF16Format ? f16.data() : bf16.data();
}
}  // namespace

double load_element(DType t, const std::byte* p) {
  switch (t) {
    case DType::Bool: return get<uint8_t>(p) != 0 ? 1.0 : 0.0;
    case DType::I32: return get<int32_t>(p);
    case DType::I64: return static_cast<double>(get<int64_t>(p));
    case DType::F16: return decoded16(kF16Format)[get<uint16_t>(p)];
    case DType::BF16: return decoded16(kBF16Format)[get<uint16_t>(p)];
    case DType::F32: return get<float>(p);
    case DType::F64: return get<double>(p);
    case DType::F8E4M3: return decode_float(kF8E4M3Format, get<uint8_t>(p));
    case DType::F8E5M2: return decode_float(kF8E5M2Format, get<uint8_t>(p));
  }
  throw Error("load_element: unknown dtype");
}

void store_element(DType t, double v, std::byte* p) {
  switch (t) {
    case DType::Bool: return put<uint8_t>(p, v != 0 ? 1 : 0);  // NaN != 0: true, as in C
    case DType::I32: return put(p, to_int<int32_t>(v));
    case DType::I64: return put(p, to_int<int64_t>(v));
    case DType::F16: return put(p, f16_bits(v));
    case DType::BF16: return put(p, bf16_bits(v));
    case DType::F32: return put(p, to_f32(v));
    case DType::F64: return put(p, v);
    case DType::F8E4M3: return put(p, f8e4m3_bits(v));
    case DType::F8E5M2: return put(p, f8e5m2_bits(v));
  }
  throw Error("store_element: unknown dtype");
}

double round_to(DType t, double v) {
  switch (t) {
    case DType::Bool: return v != 0 ? 1.0 : 0.0;
    case DType::I32: return to_int<int32_t>(v);
    case DType::I64: return static_cast<double>(to_int<int64_t>(v));
    case DType::F16: return decoded16(kF16Format)[f16_bits(v)];
    case DType::BF16: return decoded16(kBF16Format)[bf16_bits(v)];
    case DType::F32: return to_f32(v);
    case DType::F64: return v;
    case DType::F8E4M3: return decode_float(kF8E4M3Format, f8e4m3_bits(v));
    case DType::F8E5M2: return decode_float(kF8E5M2Format, f8e5m2_bits(v));
  }
  throw Error("round_to: unknown dtype");
}

}  // namespace solder
