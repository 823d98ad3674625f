#pragma once
// Bit-exact conversions between doubles and the narrow float formats (f16, bf16, fp8).
// Every encoder rounds directly from double to nearest-even: rounding through float first
// would double-round (a double just above an f16 tie can land exactly on it as a float).
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace solder {

// A binary floating-point format with an implicit leading 1 and IEEE-style subnormals.
// `ieee_specials`: the all-ones exponent encodes Inf (mantissa 0) and NaN (otherwise).
// Without it (the "fn" formats such as e4m3fn) there is no Inf and only the all-ones code is
// NaN; the rest of the top binade holds ordinary finite values.
struct FloatFormat {
  int exp_bits;
  int man_bits;
  bool ieee_specials;
};

inline constexpr FloatFormat kF16Format{5, 10, true};
inline constexpr FloatFormat kBF16Format{8, 7, true};
inline constexpr FloatFormat kF8E4M3Format{4, 3, false};
inline constexpr FloatFormat kF8E5M2Format{5, 2, true};

// Largest finite value of the format (65504 for f16, 448 for e4m3fn, 57344 for e5m2).
double max_finite(const FloatFormat& f);

// The format's exponent bias, field masks and special codes.
namespace float_format {
inline constexpr int bias(const FloatFormat& f) { return (1 << (f.exp_bits - 1)) - 1; }
inline constexpr uint32_t exp_mask(const FloatFormat& f) { return (1u << f.exp_bits) - 1; }
inline constexpr uint32_t man_mask(const FloatFormat& f) { return (1u << f.man_bits) - 1; }

inline constexpr uint32_t nan_code(const FloatFormat& f) {
  // IEEE formats: the canonical quiet NaN (top mantissa bit). fn formats: the all-ones code.
  if (f.ieee_specials) return (exp_mask(f) << f.man_bits) | (1u << (f.man_bits - 1));
  return (exp_mask(f) << f.man_bits) | man_mask(f);
}

// An overflowing value becomes Inf where the format has one, else NaN.
inline constexpr uint32_t overflow_code(const FloatFormat& f) {
  return f.ieee_specials ? exp_mask(f) << f.man_bits : nan_code(f);
}
}  // namespace float_format

// Rounds v to nearest-even in format f and returns its code (sign bit at exp_bits+man_bits).
// Magnitudes that round above max_finite overflow to Inf, or to NaN when the format has no Inf
// (non-saturating, as PyTorch and the OCP spec define it). NaN maps to a quiet NaN with v's sign.
// Works on the double's bits (integer shifts, no libm): the reference rounds every element of
// every op, so this is its hottest function, and it is inline so that with the constant
// formats below the compiler folds the format's masks and limits (a fifth of the time went
// there, called out of line).
inline uint32_t encode_float(const FloatFormat& f, double v) {
  using namespace float_format;
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

double decode_float(const FloatFormat& f, uint32_t bits);

inline uint16_t f16_bits(double v) { return static_cast<uint16_t>(encode_float(kF16Format, v)); }
inline uint16_t bf16_bits(double v) { return static_cast<uint16_t>(encode_float(kBF16Format, v)); }
inline uint8_t f8e4m3_bits(double v) { return static_cast<uint8_t>(encode_float(kF8E4M3Format, v)); }
inline uint8_t f8e5m2_bits(double v) { return static_cast<uint8_t>(encode_float(kF8E5M2Format, v)); }

// Decoding is exact in float too (every narrow format is a subset of f32).
inline float f16_to_float(uint16_t b) { return static_cast<float>(decode_float(kF16Format, b)); }
inline float bf16_to_float(uint16_t b) { return static_cast<float>(decode_float(kBF16Format, b)); }
inline float f8e4m3_to_float(uint8_t b) { return static_cast<float>(decode_float(kF8E4M3Format, b)); }
inline float f8e5m2_to_float(uint8_t b) { return static_cast<float>(decode_float(kF8E5M2Format, b)); }

}  // namespace solder
