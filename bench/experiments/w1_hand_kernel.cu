// A/B harness, not part of the build: hand-written variants of the W1 persistent layer-norm kernel
// (fp16, B=8192), timed like `solder bench` (L2 flushed, events, median) against a copy of the
// same bytes. Variant A is the generator's configuration written by hand: it reached 87-88% of
// the copy at H=4096 where the generated kernel reached 79% (docs/perf-notes.md, 2026-11-23
// afternoon); with pairs of f16 the generated kernel matches it (41 us, 2026-11-23 evening).
// Build and run on the device:
//   nvcc -arch=sm_90a -O3 -std=c++17 -o /tmp/w1v bench/experiments/w1_hand_kernel.cu && /tmp/w1v
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
typedef unsigned short u16;
struct __align__(16) V8 { unsigned w[4]; };
__device__ __forceinline__ float lo(unsigned v) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((u16)(v & 0xffff))); return f; }
__device__ __forceinline__ float hi(unsigned v) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((u16)(v >> 16))); return f; }
__device__ __forceinline__ unsigned hadd2(unsigned a, unsigned b) { unsigned r; asm("add.rn.f16x2 %0,%1,%2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ unsigned pack(float a, float b) { unsigned r; asm("cvt.rn.f16x2.f32 %0, %2, %1;" : "=r"(r) : "f"(a), "f"(b)); return r; }

// flags
enum { SYNC2 = 1, WBS = 2, FOLD = 4, F32ROW = 8, ONERED = 16, I32 = 32 };

template <int TPR, int BATCH, int RPB, int MINB, int FL>
__global__ void __launch_bounds__(TPR * RPB, MINB)
w1(const u16* __restrict__ t0, const u16* __restrict__ t1, const u16* __restrict__ t2, const u16* __restrict__ t3,
   const u16* __restrict__ t4, u16* __restrict__ out, int R, int C) {
  constexpr int NW = TPR / 32;
  const int tr = threadIdx.x % TPR, ry = threadIdx.x / TPR;
  __shared__ float sm0[RPB][NW], sm1[RPB][NW], sm2[RPB][NW];
  extern __shared__ float4 wbs[];
  float* wf = (float*)wbs;
  float* bf = wf + C;
  if constexpr (FL & WBS) {
    for (int i = threadIdx.x; i < C / 2; i += TPR * RPB) {
      unsigned w = ((const unsigned*)t4)[i], bb = ((const unsigned*)t3)[i];
      wf[2 * i] = lo(w); wf[2 * i + 1] = hi(w); bf[2 * i] = lo(bb); bf[2 * i + 1] = hi(bb);
    }
    __syncthreads();
  }
  V8 pf[BATCH];
  {
    const int row = blockIdx.x * RPB + ry;
    if (row < R)
#pragma unroll
      for (int b = 0; b < BATCH; ++b) {
        const int col0 = (b * TPR + tr) * 8;
        pf[b] = *(const V8*)(t1 + (long long)row * C + (col0 < C ? col0 : 0));
      }
  }
  for (int rb = blockIdx.x * RPB; rb < R; rb += gridDim.x * RPB) {
    const int row = rb + ry;
    const bool row_ok = row < R;
    const int rowc = row_ok ? row : R - 1;
    unsigned m[BATCH][4];
    float xf[BATCH][8];
    float s = 0;
    int nval = 0;
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      const int col0 = (b * TPR + tr) * 8;
      const bool ok = row_ok && col0 < C;
      const int colc = col0 < C ? col0 : 0;
      const V8 a = *(const V8*)(t0 + colc), c2 = *(const V8*)(t2 + colc);
      float ls = 0;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        m[b][k] = hadd2(hadd2(pf[b].w[k], a.w[k]), c2.w[k]);
        const float x0 = lo(m[b][k]), x1 = hi(m[b][k]);
        if constexpr (FL & F32ROW) { xf[b][2 * k] = x0; xf[b][2 * k + 1] = x1; }
        ls += x0; ls += x1;
      }
      if (ok) { s += ls; nval += 8; }
    }
    {
      const int prow = row + gridDim.x * RPB;
      if (prow < R)
#pragma unroll
        for (int b = 0; b < BATCH; ++b) {
          const int col0 = (b * TPR + tr) * 8;
          pf[b] = *(const V8*)(t1 + (long long)prow * C + (col0 < C ? col0 : 0));
        }
    }
    auto X = [&](int b, int j) -> float {
      if constexpr (FL & F32ROW) return xf[b][j];
      else return (j & 1) ? hi(m[b][j / 2]) : lo(m[b][j / 2]);
    };
    // This thread's sum of (x - center)^2 over its valid elements.
    auto squared_deviations = [&](float center) {
      float sum = 0;
#pragma unroll
      for (int b = 0; b < BATCH; ++b) {
        float l = 0;
#pragma unroll
        for (int j = 0; j < 8; ++j) { const float d = X(b, j) - center; l = fmaf(d, d, l); }
        if (row_ok && (b * TPR + tr) * 8 < C) sum += l;
      }
      return sum;
    };
    float mean, rstd;
    if constexpr (FL & ONERED) {
      // per-thread two-pass, then Chan merge of (n, mean, M2)
      float n = (float)nval;
      float lm = nval ? s / n : 0.f;
      float M2 = squared_deviations(lm);
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) {
        const float nb = __shfl_xor_sync(~0u, n, o), mb = __shfl_xor_sync(~0u, lm, o), M2b = __shfl_xor_sync(~0u, M2, o);
        const float nn = n + nb;
        const float d = mb - lm;
        const float f = nn > 0 ? __fdividef(nb, nn) : 0.f;
        lm = fmaf(d, f, lm);
        M2 = M2 + M2b + d * d * n * f;
        n = nn;
      }
      if ((tr & 31) == 0) { sm0[ry][tr >> 5] = n; sm1[ry][tr >> 5] = lm; sm2[ry][tr >> 5] = M2; }
      __syncthreads();
      float N = sm0[ry][0], Mn = sm1[ry][0], Q = sm2[ry][0];
#pragma unroll
      for (int k = 1; k < NW; ++k) {
        const float nb = sm0[ry][k], mb = sm1[ry][k], qb = sm2[ry][k];
        const float nn = N + nb, d = mb - Mn, f = __fdividef(nb, nn);
        Mn = fmaf(d, f, Mn); Q = Q + qb + d * d * N * f; N = nn;
      }
      if constexpr (!(FL & SYNC2)) __syncthreads();
      mean = Mn;
      rstd = rsqrtf(Q / (float)C + 1e-5f);
    } else {
      // The row's sum of v: shuffles within a warp, then the warps' partials through `part`.
      auto block_sum = [&](float v, float (*part)[NW]) {
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
        if ((tr & 31) == 0) part[ry][tr >> 5] = v;
        __syncthreads();
        v = part[ry][0];
#pragma unroll
        for (int k = 1; k < NW; ++k) v += part[ry][k];
        if constexpr (!(FL & SYNC2)) __syncthreads();
        return v;
      };
      mean = block_sum(s, sm0) / (float)C;
      rstd = rsqrtf(block_sum(squared_deviations(mean), sm1) / (float)C + 1e-5f);
    }
    const float nmr = -mean * rstd;
#pragma unroll
    for (int b = 0; b < BATCH; ++b) {
      const int col0 = (b * TPR + tr) * 8;
      const bool ok = row_ok && col0 < C;
      const int colc = col0 < C ? col0 : 0;
      float w[8], bb[8];
      if constexpr (FL & WBS) {
        const float4 w0 = *(const float4*)(wf + colc), w1v = *(const float4*)(wf + colc + 4);
        const float4 b0 = *(const float4*)(bf + colc), b1 = *(const float4*)(bf + colc + 4);
        w[0] = w0.x; w[1] = w0.y; w[2] = w0.z; w[3] = w0.w; w[4] = w1v.x; w[5] = w1v.y; w[6] = w1v.z; w[7] = w1v.w;
        bb[0] = b0.x; bb[1] = b0.y; bb[2] = b0.z; bb[3] = b0.w; bb[4] = b1.x; bb[5] = b1.y; bb[6] = b1.z; bb[7] = b1.w;
      } else {
        const V8 wv = *(const V8*)(t4 + colc), bv = *(const V8*)(t3 + colc);
#pragma unroll
        for (int k = 0; k < 4; ++k) { w[2 * k] = lo(wv.w[k]); w[2 * k + 1] = hi(wv.w[k]); bb[2 * k] = lo(bv.w[k]); bb[2 * k + 1] = hi(bv.w[k]); }
      }
      V8 o;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        float y[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int j = 2 * k + h;
          float n;
          if constexpr (FL & FOLD) n = fmaf(X(b, j), rstd, nmr);
          else n = (X(b, j) - mean) * rstd;
          y[h] = fmaf(n, w[j], bb[j]);
        }
        o.w[k] = pack(y[0], y[1]);
      }
      if (ok) *(V8*)(out + (long long)rowc * C + colc) = o;
    }
  }
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
static float* flushbuf; static size_t flushn = 256u << 20;
template <class F> float timeit(F f, int reps = 40) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int i = 0; i < reps + 3; ++i) {
    cudaMemsetAsync(flushbuf, i, flushn);
    cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); if (i >= 3) t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
struct Bufs { u16 *t0, *t1, *t2, *t3, *t4, *out, *ref; int R, C; };
static std::vector<u16> host_ref;
template <int TPR, int BATCH, int RPB, int MINB, int FL>
void run(const char* name, Bufs& bf, float copy_us, bool is_ref = false) {
  auto k = w1<TPR, BATCH, RPB, MINB, FL>;
  size_t smem = (FL & WBS) ? (size_t)bf.C * 8 : 0;
  if (smem > 48 * 1024) CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int per_sm = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, TPR * RPB, smem));
  cudaFuncAttributes at; cudaFuncGetAttributes(&at, k);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int grid = std::min((bf.R + RPB - 1) / RPB, sms * per_sm);
  CK(cudaMemset(bf.out, 0xff, (size_t)bf.R * bf.C * 2));
  k<<<grid, TPR * RPB, smem>>>(bf.t0, bf.t1, bf.t2, bf.t3, bf.t4, bf.out, bf.R, bf.C);
  CK(cudaDeviceSynchronize());
  std::vector<u16> h((size_t)bf.R * bf.C);
  CK(cudaMemcpy(h.data(), bf.out, h.size() * 2, cudaMemcpyDeviceToHost));
  double maxd = 0;
  if (is_ref) host_ref = h;
  for (size_t i = 0; i < h.size(); ++i) {
    float a = __half2float(__ushort_as_half(h[i])), b = __half2float(__ushort_as_half(host_ref[i]));
    maxd = std::max(maxd, (double)fabsf(a - b)); if (a != a) maxd = 1e9;
  }
  float us = timeit([&] { k<<<grid, TPR * RPB, smem>>>(bf.t0, bf.t1, bf.t2, bf.t3, bf.t4, bf.out, bf.R, bf.C); });
  printf("H=%-6d %-28s tpr=%-4d batch=%d rpb=%d regs=%-3d blk/SM=%d grid=%-5d  %7.2f us  %5.1f%% of copy  maxdiff=%.3g\n", bf.C, name,
         TPR, BATCH, RPB, at.numRegs, per_sm, grid, us, 100.0 * copy_us / us, maxd);
}
Bufs make(int R, int C) {
  Bufs b; b.R = R; b.C = C;
  auto alloc = [](size_t n, u16** p) {
    CK(cudaMalloc(p, n * 2)); std::vector<u16> h(n);
    for (auto& x : h) x = __half_as_ushort(__float2half((rand() / (float)RAND_MAX) * 4 - 2));
    CK(cudaMemcpy(*p, h.data(), n * 2, cudaMemcpyHostToDevice));
  };
  alloc(C, &b.t0); alloc((size_t)R * C, &b.t1); alloc(C, &b.t2); alloc(C, &b.t3); alloc(C, &b.t4);
  CK(cudaMalloc(&b.out, (size_t)R * C * 2));
  return b;
}
float copy_us(size_t bytes) {
  void *s, *d; size_t half = (bytes / 2 + 15) / 16 * 16; CK(cudaMalloc(&s, half)); CK(cudaMalloc(&d, half));
  float us = timeit([&] { cudaMemcpyAsync(d, s, half, cudaMemcpyDeviceToDevice); });
  cudaFree(s); cudaFree(d); return us;
}
// Measured 2026-11-23 on the H200 (µs at B=8192; docs/results/2026-11-23b/w1-hand-variants.txt).
int main() {
  CK(cudaMalloc(&flushbuf, flushn));
  const int R = 8192;
  {
    const int C = 4096; Bufs b = make(R, C);
    float cu = copy_us((size_t)R * C * 4 + (size_t)C * 8);
    printf("H=%d copy %.2f us\n", C, cu);
    run<256, 2, 1, 4, 0>("A generator's config", b, cu, true);     // 40.8
    run<256, 2, 1, 4, SYNC2>("B one barrier", b, cu);                  // 40.7
    run<256, 2, 1, 4, SYNC2 | WBS>("C + w,b f32 in smem", b, cu);     // 41.8
    run<256, 2, 1, 4, SYNC2 | FOLD>("D + fma fold", b, cu);           // 40.5
    run<256, 2, 1, 4, SYNC2 | FOLD | F32ROW>("F + row as f32", b, cu); // (F with WBS: 43.9)
    run<256, 2, 1, 4, SYNC2 | FOLD | ONERED>("G Chan merge", b, cu);  // 44.1
    run<512, 1, 1, 2, SYNC2 | FOLD>("K 512 threads", b, cu);          // (with WBS: 53.1)
  }
  {
    const int C = 2048; Bufs b = make(R, C);
    float cu = copy_us((size_t)R * C * 4 + (size_t)C * 8);
    printf("H=%d copy %.2f us\n", C, cu);
    run<128, 2, 2, 4, 0>("A generator's config", b, cu, true);       // 22.4
    run<128, 2, 2, 4, SYNC2 | FOLD>("D", b, cu);                      // 22.1
    run<256, 1, 1, 4, SYNC2 | FOLD | ONERED>("G 256 threads", b, cu); // 32.9
  }
  {
    const int C = 16384; Bufs b = make(R, C);
    float cu = copy_us((size_t)R * C * 4 + (size_t)C * 8);
    printf("H=%d copy %.2f us\n", C, cu);
    run<1024, 2, 1, 1, 0>("A 1024 threads", b, cu, true);            // 157.8
    run<1024, 2, 1, 1, SYNC2 | FOLD>("D", b, cu);                     // 149.7
  }
  return 0;
}
