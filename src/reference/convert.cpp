// Element conversions for every dtype: the narrow float formats through one generic
// round-to-nearest-even encoder, integers by C-style truncation with clamping.
#include "reference/convert.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "solder/error.h"
#include "solder/host_tensor.h"

namespace solder {

namespace {
int bias(const FloatFormat& f) { return (1 << (f.exp_bits - 1)) - 1; }
uint32_t exp_mask(const FloatFormat& f) { return (1u << f.exp_bits) - 1; }
uint32_t man_mask(const FloatFormat& f) { return (1u << f.man_bits) - 1; }

uint32_t nan_code(const FloatFormat& f) {
  // IEEE formats: the canonical quiet NaN (top mantissa bit). fn formats: the all-ones code.
  if (f.ieee_specials) return (exp_mask(f) << f.man_bits) | (1u << (f.man_bits - 1));
  return (exp_mask(f) << f.man_bits) | man_mask(f);
}

// An overflowing value becomes Inf where the format has one, else NaN.
uint32_t overflow_code(const FloatFormat& f) {
  return f.ieee_specials ? exp_mask(f) << f.man_bits : nan_code(f);
}

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

// Works on the double's bits (integer shifts, no libm): the reference rounds every element of
// every op, so this is its hottest function.
uint32_t encode_float(const FloatFormat& f, double v) {
  const int m = f.man_bits;
  uint64_t b;
  std::memcpy(&b, &v, sizeof(b));
  const uint32_t sign = (b >> 63) ? 1u << (f.exp_bits + m) : 0u;
  const int field = static_cast<int>((b >> 52) & 0x7FF);
  const uint64_t frac = b & ((uint64_t{1} << 52) - 1);
  if (field == 0x7FF) return sign | (frac ? nan_code(f) : overflow_code(f));
  // Double subnormals (< 2^-1022) are far below half the smallest subnormal of any format
  // here (exp_bits <= 8), so they round to a signed zero along with zero itself.
  if (field == 0) return sign;
  const uint64_t sig = frac | (uint64_t{1} << 52);  // |v| = sig * 2^(e - 52)
  const int e = field - 1023;
  const int emin = 1 - bias(f);
  int E = std::max(e, emin);  // target binade; below emin the quantum stays 2^(emin - m)
  // q = |v| / 2^(E - m), rounded to nearest even: drop `shift` low bits of sig.
  const int shift = 52 - m + (E - e);
  if (shift > 53) return sign;  // below half the smallest subnormal
  uint64_t q = sig >> shift;
  const uint64_t rem = sig & ((uint64_t{1} << shift) - 1), half = uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  if (q == (uint64_t{2} << m)) {  // rounded up into the next binade
    q >>= 1;
    ++E;
  }
  if (q < (uint64_t{1} << m)) return sign | static_cast<uint32_t>(q);  // subnormal or zero
  // Overflow is decided on the rounded magnitude, as if the exponent range were unbounded.
  const int top = static_cast<int>(exp_mask(f)) - (f.ieee_specials ? 1 : 0) - bias(f);
  const uint64_t top_q = (uint64_t{1} << m) | (f.ieee_specials ? man_mask(f) : man_mask(f) - 1);
  if (E > top || (E == top && q > top_q)) return sign | overflow_code(f);
  return sign | (static_cast<uint32_t>(E + bias(f)) << m) | static_cast<uint32_t>(q - (uint64_t{1} << m));
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

double load_element(DType t, const std::byte* p) {
  switch (t) {
    case DType::Bool: return get<uint8_t>(p) != 0 ? 1.0 : 0.0;
    case DType::I32: return get<int32_t>(p);
    case DType::I64: return static_cast<double>(get<int64_t>(p));
    case DType::F16: return decode_float(kF16Format, get<uint16_t>(p));
    case DType::BF16: return decode_float(kBF16Format, get<uint16_t>(p));
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
    case DType::F16: return decode_float(kF16Format, f16_bits(v));
    case DType::BF16: return decode_float(kBF16Format, bf16_bits(v));
    case DType::F32: return to_f32(v);
    case DType::F64: return v;
    case DType::F8E4M3: return decode_float(kF8E4M3Format, f8e4m3_bits(v));
    case DType::F8E5M2: return decode_float(kF8E5M2Format, f8e5m2_bits(v));
  }
  throw Error("round_to: unknown dtype");
}

}  // namespace solder
