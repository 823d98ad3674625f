// Exhaustive check of a branch-free f16 division (stop 52's lead for seed 33 #080): for every
// pair of f16 (or bf16) values a, b, is round_t(q) equal to round_t(a / b) in f32 (eager's
// division: widen, divide correctly rounded, round back)? q takes the hardware's approximate
// reciprocal y, the product q0 = a y, the remainder r = a - q0 b (exact by an FMA) and one
// correction q0 + r y; where q0 is zero, infinite or NaN (a or b zero, infinite or NaN) q0 is
// already the IEEE quotient. The reciprocal flushes subnormals, as the device runtime's div_f16
// does. Also the runtime's div_narrow (the reciprocal's product, divisors outside
// [2^-126, 2^126] scaled) for bf16 pairs, whose tiny and huge divisors take both scalings.
// Prints the mismatches (the first few, and a count) per type.
//   nvcc -O3 -arch=sm_90 bench/experiments/f16_div_check.cu -o /tmp/f16_div_check && /tmp/f16_div_check
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ float rcp_approx(float b) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(b));
  return y;
}
__device__ float narrow_quotient(float a, float b) {
  const float m = fabsf(b), s = m < 0x1p-126f ? 0x1p32f : m > 0x1p126f ? 0x1p-32f : 1.f;
  return __fmul_rn(__fmul_rn(a, rcp_approx(b * s)), s);
}
__device__ float quotient(float a, float b) {
  const float y = rcp_approx(b), q0 = __fmul_rn(a, y);
  const float r = __fmaf_rn(-q0, b, a), q1 = __fmaf_rn(r, y, q0);
  const float m = fabsf(q0);
  return m > 0.f && m < INFINITY ? q1 : q0;
}
template <bool BF16> __device__ float widen(unsigned short h) {
  if constexpr (BF16) return __uint_as_float((unsigned)h << 16);
  else return __half2float(__ushort_as_half(h));
}
template <bool BF16> __device__ unsigned short narrow(float x) {
  if constexpr (BF16) return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  else return __half_as_ushort(__float2half_rn(x));
}
template <bool BF16> __device__ bool is_nan(unsigned short h) { return (h & 0x7fff) > (BF16 ? 0x7f80 : 0x7c00); }
template <bool BF16, bool NARROW> __global__ void check(unsigned long long* bad, unsigned* first) {
  const unsigned short ha = blockIdx.x * blockDim.x + threadIdx.x;
  const float a = widen<BF16>(ha);
  for (unsigned hb = 0; hb < 65536; ++hb) {
    const float b = widen<BF16>((unsigned short)hb);
    const unsigned short want = narrow<BF16>(__fdiv_rn(a, b)), got = narrow<BF16>(NARROW ? narrow_quotient(a, b) : quotient(a, b));
    if (is_nan<BF16>(want) ? !is_nan<BF16>(got) : want != got) {  // any NaN for a NaN
      const unsigned long long n = atomicAdd(bad, 1ull);
      if (n < 8) { first[3 * n] = ha; first[3 * n + 1] = hb; first[3 * n + 2] = (unsigned)want << 16 | got; }
    }
  }
}
template <bool BF16, bool NARROW = false> void run(const char* name) {
  unsigned long long* bad;
  unsigned* first;
  cudaMallocManaged(&bad, sizeof *bad);
  cudaMallocManaged(&first, 24 * sizeof *first);
  *bad = 0;
  check<BF16, NARROW><<<256, 256>>>(bad, first);
  if (cudaDeviceSynchronize() != cudaSuccess) { std::printf("%s: kernel failed\n", name); return; }
  std::printf("%s: %llu of 2^32 pairs differ\n", name, *bad);
  for (unsigned long long i = 0; i < *bad && i < 8; ++i)
    std::printf("  a=0x%04x b=0x%04x eager=0x%04x fast=0x%04x\n", first[3 * i], first[3 * i + 1], first[3 * i + 2] >> 16,
                first[3 * i + 2] & 0xffff);
  cudaFree(bad);
  cudaFree(first);
}
int main() {
  run<false>("f16");
  run<true>("bf16");
  run<true, true>("bf16 div_narrow");
}
