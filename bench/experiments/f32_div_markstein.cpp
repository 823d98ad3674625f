// A lead for f32 divisions whose divisor is the same across many elements (a constant, a row's
// statistic): with its correctly rounded reciprocal y = RN(1/b), is one product and one
// correction, fma(fma(-q0, b, a), y, q0) with q0 = RN(a y), the correctly rounded a / b
// (Markstein's theorem) for every f32 a with |a| in [2^-100, 2^100]? Sampled divisors, the
// first four chosen (3, significands of all ones, 1 + ulp), on the CPU (IEEE float, FMA).
//   g++ -O3 -march=native -ffp-contract=off bench/experiments/f32_div_markstein.cpp -o /tmp/mk && /tmp/mk 40
// Stop 58 (2026-12-03): 0 mismatches of 134217728080 (40 divisors, every such a).
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <random>
static float f(uint32_t u) { float x; std::memcpy(&x, &u, 4); return x; }
static uint32_t u(float x) { uint32_t v; std::memcpy(&v, &x, 4); return v; }
int main(int argc, char** argv) {
  const int nb = argc > 1 ? atoi(argv[1]) : 8, part = argc > 2 ? atoi(argv[2]) : 0, parts = argc > 3 ? atoi(argv[3]) : 1;
  std::mt19937 rng(1234);
  long long bad = 0, checked = 0;
  for (int j = 0; j < nb; ++j) {
    float b = j == 0 ? 3.0f : j == 1 ? f(0x3fffffff) : j == 2 ? f(0x3f7fffff) : j == 3 ? 1.0000001f : f((rng() & 0x007fffff) | ((100 + rng() % 56) << 23));
    if (j % parts != part) continue;
    const float y = 1.0f / b;
    long long badb = 0;
    for (uint64_t i = 0; i < (1ull << 32); i += 1) {
      const float a = f((uint32_t)i);
      const float ea = std::fabs(a);
      if (!(ea >= 0x1p-100f && ea <= 0x1p100f)) continue;
      const float q0 = a * y, r = std::fma(-q0, b, a), q = std::fma(r, y, q0);
      const float want = a / b;
      ++checked;
      if (u(q) != u(want)) { if (++badb <= 2) std::printf("  b=%a a=%a got %a want %a\n", b, a, q, want); }
    }
    bad += badb;
    std::printf("b=%a: %lld mismatches\n", b, badb);
    std::fflush(stdout);
  }
  std::printf("total %lld of %lld\n", bad, checked);
}
