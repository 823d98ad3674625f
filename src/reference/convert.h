#pragma once
// Bit-exact conversions between doubles and the narrow float formats (f16, bf16, fp8).
// Every encoder rounds directly from double to nearest-even: rounding through float first
// would double-round (a double just above an f16 tie can land exactly on it as a float).
#include <cstdint>

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

// Rounds v to nearest-even in format f and returns its code (sign bit at exp_bits+man_bits).
// Magnitudes that round above max_finite overflow to Inf, or to NaN when the format has no Inf
// (non-saturating, as PyTorch and the OCP spec define it). NaN maps to a quiet NaN with v's sign.
uint32_t encode_float(const FloatFormat& f, double v);
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
