// A call-free f32 division (div_wide of docs/results/2026-12-04c/next/call_free_divisions.patch: no
// slow-path subroutine) checked on the CPU against IEEE a / b:
// the operands widened to f64, the reciprocal an approximation (1/b off by up to 2^-20 relative,
// more than rcp.approx.ftz.f64's error) refined by three Newton steps, the quotient corrected
// once by its exact remainder, rounded to f32. Pairs of special values, then random bit
// patterns, half of them at the extreme exponents that take the slow path (subnormal and
// overflowing quotients among them).
//   g++ -O2 -ffp-contract=off bench/experiments/f32_div_wide.cpp -o /tmp/wide && /tmp/wide 200000000
// 2026-12-04 (this 2-core machine): 0 mismatches of 200000000.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <random>
static float f(uint32_t u) { float x; std::memcpy(&x, &u, 4); return x; }
static uint32_t u(float x) { uint32_t v; std::memcpy(&v, &x, 4); return v; }
static double approx_rcp(double b, double rel) { return (1.0 / b) * (1.0 + rel); }
static float div_wide(float a, float b, double rel) {
  const double da = a, db = b;
  double y = approx_rcp(db, rel);
  if (std::isinf(1.0 / db) || db == 0) y = 1.0 / db;  // the hardware's specials: 1/0 = inf, 1/inf = 0
  const double q0 = da * y;
  if (!(std::fabs(q0) <= 1e300) || q0 == 0.0) return (float)q0;
  for (int i = 0; i < 3; ++i) y = std::fma(y, std::fma(-db, y, 1.0), y);
  const double q = da * y, r = std::fma(-db, q, da);
  return (float)std::fma(r, y, q);
}
int main(int argc, char** argv) {
  const long long n = argc > 1 ? atoll(argv[1]) : 100000000;
  std::mt19937_64 rng(7);
  long long bad = 0;
  const uint32_t edges[] = {0, 0x80000000u, 1, 0x80000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                            0x3f800000u, 0x3fffffffu, 0x3f7fffffu, 0x1f800000u, 0x5f800000u, 0x20800000u, 0x5e800000u, 0x0000ffffu};
  auto check = [&](float a, float b, double rel) {
    const float want = a / b, got = div_wide(a, b, rel);
    if (u(want) != u(got) && !(std::isnan(want) && std::isnan(got))) {
      if (bad++ < 10) std::printf("a %08x b %08x want %08x got %08x rel %g\n", u(a), u(b), u(want), u(got), rel);
    }
  };
  std::uniform_real_distribution<double> reld(-0x1p-20, 0x1p-20);
  for (uint32_t x : edges) for (uint32_t y : edges) for (double rel : {0.0, 0x1p-20, -0x1p-20}) check(f(x), f(y), rel);
  for (long long i = 0; i < n; ++i) {
    const uint32_t ra = (uint32_t)rng(), rb = (uint32_t)rng();
    // Half the pairs at extreme exponents (the slow path's operands), half anywhere.
    const uint32_t ea = (i & 1) ? ra : (ra & 0x807fffffu) | ((uint32_t)(rng() % 24 + (rng() & 1 ? 0 : 231)) << 23);
    const uint32_t eb = (i & 2) ? rb : (rb & 0x807fffffu) | ((uint32_t)(rng() % 24 + (rng() & 1 ? 0 : 231)) << 23);
    check(f(ea), f(eb), reld(rng));
  }
  std::printf("%lld mismatches of %lld\n", bad, n);
}
