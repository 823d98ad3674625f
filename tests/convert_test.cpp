// Exact element conversions: round-to-nearest-even ties, subnormals, overflow, NaN, signed
// zero, and fp8's non-saturating overflow rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "reference/convert.h"
#include "solder/host_tensor.h"

using namespace solder;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

uint32_t bits(const FloatFormat& f, double v) { return encode_float(f, v); }
bool is_nan_code(const FloatFormat& f, uint32_t b) { return std::isnan(decode_float(f, b)); }
}  // namespace

TEST(ConvertF16, ExactValuesAndTies) {
  EXPECT_EQ(f16_bits(1.0), 0x3C00);
  EXPECT_EQ(f16_bits(-2.0), 0xC000);
  EXPECT_EQ(f16_bits(65504.0), 0x7BFF);
  // Halfway between 1 and 1+2^-10 goes to the even mantissa (1.0); 3 half-ulps go up to 2 ulps.
  EXPECT_EQ(f16_bits(1.0 + 0x1p-11), 0x3C00);
  EXPECT_EQ(f16_bits(1.0 + 3 * 0x1p-11), 0x3C02);
  EXPECT_EQ(f16_bits(1.0 + 0x1p-11 + 0x1p-40), 0x3C01);
  // Rounding through float would lose the 2^-40 and land on the tie, giving 1.0: the result
  // above proves the encoder rounds from double directly.
  EXPECT_EQ(static_cast<double>(static_cast<float>(1.0 + 0x1p-11 + 0x1p-40)), 1.0 + 0x1p-11);
  EXPECT_EQ(round_to(DType::F16, 0.1), 0.0999755859375);
}

TEST(ConvertF16, Subnormals) {
  EXPECT_EQ(f16_bits(0x1p-24), 0x0001);          // smallest subnormal
  EXPECT_EQ(f16_bits(0x1p-25), 0x0000);          // tie with 0: even
  EXPECT_EQ(f16_bits(0x1p-25 + 0x1p-60), 0x0001);
  EXPECT_EQ(f16_bits(3 * 0x1p-25), 0x0002);      // tie between 1 and 2 ulps: even
  EXPECT_EQ(f16_bits(1023 * 0x1p-24), 0x03FF);   // largest subnormal
  EXPECT_EQ(f16_bits(1023.5 * 0x1p-24), 0x0400); // tie rounds up into the smallest normal
  EXPECT_EQ(f16_bits(0x1p-14), 0x0400);
  EXPECT_EQ(f16_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(f16_bits(-0x1p-24), 0x8001);
  EXPECT_EQ(f16_bits(-0x1p-30), 0x8000);         // underflow keeps the sign
}

TEST(ConvertF16, OverflowInfNaN) {
  EXPECT_EQ(f16_bits(65519.99), 0x7BFF);
  EXPECT_EQ(f16_bits(65520.0), 0x7C00);  // the tie above max goes to the even "2^16": Inf
  EXPECT_EQ(f16_bits(-1e10), 0xFC00);
  EXPECT_EQ(f16_bits(kInf), 0x7C00);
  EXPECT_EQ(f16_bits(-kInf), 0xFC00);
  EXPECT_EQ(f16_bits(kNaN) & 0x7FFF, 0x7E00);
  EXPECT_EQ(f16_bits(-kNaN), 0xFE00);
  EXPECT_TRUE(std::isnan(round_to(DType::F16, kNaN)));
  EXPECT_EQ(f16_bits(-0.0), 0x8000);
  EXPECT_TRUE(std::signbit(round_to(DType::F16, -0.0)));
  EXPECT_EQ(max_finite(kF16Format), 65504.0);
}

TEST(ConvertF16, EveryCodeRoundTrips) {
  for (uint32_t c = 0; c < 0x10000; ++c) {
    double v = decode_float(kF16Format, c);
    if (is_nan_code(kF16Format, c)) {
      EXPECT_TRUE(((c >> 10) & 0x1F) == 0x1F && (c & 0x3FF)) << c;
      continue;
    }
    ASSERT_EQ(bits(kF16Format, v), c) << c;
  }
}

#ifdef __FLT16_MAX__
// The compiler's _Float16 conversion rounds double directly (libgcc __truncdfhf2): a second,
// independent implementation to compare against on many random doubles.
TEST(ConvertF16, MatchesCompilerFloat16) {
  uint64_t s = 12345;
  for (int i = 0; i < 200000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    double v = std::ldexp(static_cast<double>(s >> 11) * 0x1p-53 - 0.5, static_cast<int>(s % 50) - 30);
    _Float16 h = static_cast<_Float16>(v);
    uint16_t want;
    std::memcpy(&want, &h, 2);
    ASSERT_EQ(f16_bits(v), want) << v;
  }
}
#endif

TEST(ConvertBF16, ValuesTiesOverflow) {
  EXPECT_EQ(bf16_bits(1.0), 0x3F80);
  EXPECT_EQ(bf16_bits(1.0 + 0x1p-8), 0x3F80);      // tie: even
  EXPECT_EQ(bf16_bits(1.0 + 3 * 0x1p-8), 0x3F82);  // tie: even (up)
  EXPECT_EQ(bf16_bits(1.0 + 0x1p-8 + 0x1p-50), 0x3F81);
  EXPECT_EQ(bf16_bits(0x1p-133), 0x0001);  // smallest subnormal
  EXPECT_EQ(bf16_bits(0x1p-134), 0x0000);
  EXPECT_EQ(bf16_bits(0x1p-126), 0x0080);
  double mx = max_finite(kBF16Format);
  EXPECT_EQ(bf16_bits(mx), 0x7F7F);
  EXPECT_EQ(bf16_bits(mx + std::ldexp(1.0, 127 - 8) * 0.99), 0x7F7F);
  EXPECT_EQ(bf16_bits(mx + std::ldexp(1.0, 127 - 8)), 0x7F80);  // tie above max: Inf
  EXPECT_EQ(bf16_bits(-kInf), 0xFF80);
  EXPECT_EQ(bf16_bits(kNaN) & 0x7FFF, 0x7FC0);
  EXPECT_EQ(bf16_bits(-0.0), 0x8000);
  EXPECT_EQ(round_to(DType::BF16, 3.14159), 3.140625);
  for (uint32_t c = 0; c < 0x10000; ++c)
    if (!is_nan_code(kBF16Format, c)) ASSERT_EQ(bits(kBF16Format, decode_float(kBF16Format, c)), c) << c;
}

TEST(ConvertF8E4M3, EveryCodeRoundTrips) {
  int nans = 0;
  for (uint32_t c = 0; c < 256; ++c) {
    double v = decode_float(kF8E4M3Format, c);
    if (std::isnan(v)) {
      ++nans;
      EXPECT_TRUE(c == 0x7F || c == 0xFF) << c;
      EXPECT_EQ(f8e4m3_bits(v) & 0x7F, 0x7F);
      continue;
    }
    EXPECT_FALSE(std::isinf(v)) << c;  // e4m3fn has no Inf
    ASSERT_EQ(f8e4m3_bits(v), c) << c << " = " << v;
  }
  EXPECT_EQ(nans, 2);
  EXPECT_EQ(decode_float(kF8E4M3Format, 0x7E), 448.0);
  EXPECT_EQ(decode_float(kF8E4M3Format, 0x01), 0x1p-9);
  EXPECT_EQ(decode_float(kF8E4M3Format, 0x08), 0x1p-6);
}

TEST(ConvertF8E4M3, TiesSubnormalsSaturation) {
  EXPECT_EQ(f8e4m3_bits(1.0625), 0x38);  // halfway 1 .. 1.125: even (1.0)
  EXPECT_EQ(f8e4m3_bits(1.1875), 0x3A);  // halfway 1.125 .. 1.25: even (1.25)
  EXPECT_EQ(f8e4m3_bits(0x1p-10), 0x00); // halfway 0 .. 2^-9: even (0)
  EXPECT_EQ(f8e4m3_bits(0x1p-10 * 1.001), 0x01);
  EXPECT_EQ(f8e4m3_bits(7 * 0x1p-9), 0x07);
  EXPECT_EQ(f8e4m3_bits(7.5 * 0x1p-9), 0x08);  // tie into the smallest normal
  EXPECT_EQ(f8e4m3_bits(-0.0), 0x80);          // -0 is a number in e4m3fn, not NaN
  EXPECT_TRUE(std::signbit(round_to(DType::F8E4M3, -0.0)));
  // Saturation boundary. 448 is max; 464 is the midpoint to the (NaN) code above it and ties
  // to the even mantissa, 448; anything above 464 rounds into the NaN code (non-saturating).
  EXPECT_EQ(f8e4m3_bits(448.0), 0x7E);
  EXPECT_EQ(f8e4m3_bits(463.99), 0x7E);
  EXPECT_EQ(f8e4m3_bits(464.0), 0x7E);
  EXPECT_EQ(f8e4m3_bits(-464.0), 0xFE);
  EXPECT_EQ(f8e4m3_bits(std::nextafter(464.0, kInf)), 0x7F);
  EXPECT_EQ(f8e4m3_bits(480.0), 0x7F);
  EXPECT_EQ(f8e4m3_bits(-480.0), 0xFF);
  EXPECT_EQ(f8e4m3_bits(1e30), 0x7F);
  EXPECT_EQ(f8e4m3_bits(kInf), 0x7F);
  EXPECT_EQ(f8e4m3_bits(-kInf), 0xFF);
  EXPECT_TRUE(std::isnan(round_to(DType::F8E4M3, 500.0)));
  EXPECT_TRUE(std::isnan(round_to(DType::F8E4M3, kNaN)));
  EXPECT_EQ(max_finite(kF8E4M3Format), 448.0);
}

TEST(ConvertF8E5M2, EveryCodeRoundTrips) {
  int nans = 0, infs = 0;
  for (uint32_t c = 0; c < 256; ++c) {
    double v = decode_float(kF8E5M2Format, c);
    if (std::isnan(v)) {
      ++nans;
      EXPECT_EQ(c & 0x7C, 0x7C) << c;
      continue;
    }
    infs += std::isinf(v);
    ASSERT_EQ(f8e5m2_bits(v), c) << c << " = " << v;
  }
  EXPECT_EQ(nans, 6);  // 0x7D-0x7F and 0xFD-0xFF
  EXPECT_EQ(infs, 2);
  EXPECT_EQ(decode_float(kF8E5M2Format, 0x7B), 57344.0);
  EXPECT_EQ(decode_float(kF8E5M2Format, 0x01), 0x1p-16);
}

TEST(ConvertF8E5M2, TiesSubnormalsOverflow) {
  EXPECT_EQ(f8e5m2_bits(1.125), 0x3C);  // halfway 1 .. 1.25: even (1.0)
  EXPECT_EQ(f8e5m2_bits(1.375), 0x3E);  // halfway 1.25 .. 1.5: even (1.5)
  EXPECT_EQ(f8e5m2_bits(0x1p-17), 0x00);
  EXPECT_EQ(f8e5m2_bits(3 * 0x1p-17), 0x02);
  EXPECT_EQ(f8e5m2_bits(-0.0), 0x80);
  EXPECT_EQ(f8e5m2_bits(57344.0), 0x7B);
  EXPECT_EQ(f8e5m2_bits(61439.99), 0x7B);
  EXPECT_EQ(f8e5m2_bits(61440.0), 0x7C);  // midpoint ties to the even "65536": Inf
  EXPECT_EQ(f8e5m2_bits(-61440.0), 0xFC);
  EXPECT_EQ(f8e5m2_bits(kInf), 0x7C);
  EXPECT_TRUE(std::isnan(decode_float(kF8E5M2Format, f8e5m2_bits(kNaN))));
  EXPECT_EQ(round_to(DType::F8E5M2, 1e6), kInf);
  EXPECT_EQ(max_finite(kF8E5M2Format), 57344.0);
}

TEST(ConvertF32, RoundsLikeIeeeFloat) {
  EXPECT_EQ(round_to(DType::F32, 0.1), static_cast<double>(0.1f));
  EXPECT_EQ(round_to(DType::F32, 1e39), kInf);
  EXPECT_EQ(round_to(DType::F32, -1e39), -kInf);
  double fmax = std::numeric_limits<float>::max();
  EXPECT_EQ(round_to(DType::F32, fmax + std::ldexp(1.0, 102)), fmax);  // below the tie
  EXPECT_EQ(round_to(DType::F32, fmax + std::ldexp(1.0, 103)), kInf);  // the tie (half an ulp of 2^104): Inf
  EXPECT_EQ(round_to(DType::F32, 0x1p-150 * 1.5), 0x1p-149);
  EXPECT_EQ(round_to(DType::F32, 0x1p-150), 0.0);
  EXPECT_TRUE(std::isnan(round_to(DType::F32, kNaN)));
  EXPECT_EQ(round_to(DType::F64, 0.1), 0.1);
}

TEST(ConvertInt, TruncatesAndClamps) {
  EXPECT_EQ(round_to(DType::I32, 2.9), 2);
  EXPECT_EQ(round_to(DType::I32, -2.9), -2);
  EXPECT_EQ(round_to(DType::I32, kNaN), 0);
  EXPECT_EQ(round_to(DType::I32, 1e20), 2147483647.0);
  EXPECT_EQ(round_to(DType::I32, -1e20), -2147483648.0);
  EXPECT_EQ(round_to(DType::I64, -1e30), -0x1p63);
  EXPECT_EQ(round_to(DType::Bool, 0.5), 1);
  EXPECT_EQ(round_to(DType::Bool, -0.0), 0);
  EXPECT_EQ(round_to(DType::Bool, kNaN), 1);
  std::byte buf[8];
  store_element(DType::I64, 1e30, buf);
  int64_t i;
  std::memcpy(&i, buf, 8);
  EXPECT_EQ(i, std::numeric_limits<int64_t>::max());
  store_element(DType::I64, -123456789012.7, buf);
  EXPECT_EQ(load_element(DType::I64, buf), -123456789012.0);
  store_element(DType::I32, kInf, buf);
  EXPECT_EQ(load_element(DType::I32, buf), 2147483647.0);
}

TEST(ConvertElements, StoreLoadEveryDType) {
  const DType all[] = {DType::Bool, DType::I32,    DType::I64,   DType::F16, DType::BF16,
                       DType::F32,  DType::F64,    DType::F8E4M3, DType::F8E5M2};
  for (DType t : all) {
    for (double v : {0.0, 1.0, -3.0, 2.5, -0.375, 100.0}) {
      std::byte buf[8] = {};
      store_element(t, v, buf);
      EXPECT_EQ(load_element(t, buf), round_to(t, v)) << dtype_name(t) << " " << v;
    }
  }
  std::byte b[2];
  store_element(DType::F16, 1.0, b);
  uint16_t raw;
  std::memcpy(&raw, b, 2);
  EXPECT_EQ(raw, 0x3C00);
}
