// Element conversions for every dtype: the narrow float formats through one generic
// round-to-nearest-even encoder, integers by C-style truncation with clamping.
#include "reference/convert.h"

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

uint32_t encode_float(const FloatFormat& f, double v) {
  const int m = f.man_bits;
  const uint32_t sign = std::signbit(v) ? 1u << (f.exp_bits + m) : 0u;
  if (std::isnan(v)) return sign | nan_code(f);
  double a = std::fabs(v);
  if (std::isinf(a)) return sign | overflow_code(f);
  if (a == 0) return sign;
  int e2;
  std::frexp(a, &e2);
  int e = e2 - 1;  // a in [2^e, 2^(e+1))
  const int emin = 1 - bias(f);
  if (e < emin) e = emin;  // subnormal range: fixed quantum 2^(emin - m)
  // Scale so one unit in the last place is 1; exact, since it only changes the exponent.
  double s = std::ldexp(a, m - e);
  double n = std::floor(s);
  double frac = s - n;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) == 1.0)) n += 1;
  // Overflow is decided on the rounded magnitude, as if the exponent range were unbounded.
  if (std::ldexp(n, e - m) > max_finite(f)) return sign | overflow_code(f);
  auto q = static_cast<uint32_t>(n);
  if (q >= (2u << m)) {  // rounded up into the next binade
    q >>= 1;
    ++e;
  }
  if (q < (1u << m)) return sign | q;  // subnormal (or rounded to zero): exponent field 0
  return sign | (static_cast<uint32_t>(e + bias(f)) << m) | (q - (1u << m));
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
