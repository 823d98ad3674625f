// CPU stand-in for the device runtime: just enough to run generated pointwise/transpose/reduction kernels
// on host threads (one block at a time, a std::thread per CUDA thread, __syncthreads a barrier).
#pragma once
#include <barrier>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
struct Dim3 { unsigned x = 0, y = 0, z = 0; };
extern thread_local Dim3 threadIdx, blockIdx;
extern Dim3 gridDim, blockDim;
// The group kernel's member numbering (kernel_group.cpp): its parameters shadow the built-ins.
using uint3 = Dim3;
struct dim3 : Dim3 { dim3(unsigned x, unsigned y, unsigned z) : Dim3{x, y, z} {} };
inline Dim3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }
extern std::barrier<>* g_barrier;
inline void __syncthreads() { g_barrier->arrive_and_wait(); }
typedef unsigned char u8;
typedef unsigned short u16;
typedef long long i64;
template <class E, int V> struct alignas(sizeof(E) * V) Vec { E e[V]; };
inline void check_align(const void* p, size_t b) {
  if (reinterpret_cast<uintptr_t>(p) % b) { std::fprintf(stderr, "MISALIGNED vector access %p (%zu bytes)\n", p, b); std::abort(); }
}
template <class E, int V> inline Vec<E, V> ld_vec(const E* p) { check_align(p, sizeof(E) * V); Vec<E, V> v; std::memcpy(&v, p, sizeof v); return v; }
template <class E, int V> inline void st_vec(E* p, const Vec<E, V>& v) { check_align(p, sizeof(E) * V); std::memcpy(p, &v, sizeof v); }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline float f16_to_f(u16 h) { _Float16 f; std::memcpy(&f, &h, 2); return (float)f; }
inline u16 f_to_f16(float x) { _Float16 f = (_Float16)x; u16 h; std::memcpy(&h, &f, 2); return h; }
inline float bf16_to_f(u16 h) { unsigned u = (unsigned)h << 16; return __uint_as_float(u); }
inline u16 f_to_bf16(float x) { unsigned u = __float_as_uint(x); if (std::isnan(x)) return 0x7fc0; u += 0x7fffu + ((u >> 16) & 1u); return (u16)(u >> 16); }
struct Half { unsigned w; int h; operator u16() const { return (u16)(w >> (16 * h)); } };
inline Half half_of(unsigned pair, int h) { return {pair, h}; }
inline float bf16_to_f(Half x) { return bf16_to_f((u16)x); }
inline float f16_to_f(Half x) { return f16_to_f((u16)x); }
inline float held_bf16_to_f(Half x) { return bf16_to_f((u16)x); }
inline unsigned f16_pair(float lo, float hi) { return (unsigned)f_to_f16(lo) | (unsigned)f_to_f16(hi) << 16; }
inline unsigned bf16_pair(float lo, float hi) { return (unsigned)f_to_bf16(lo) | (unsigned)f_to_bf16(hi) << 16; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline float round_f16(float f) { return f16_to_f(f_to_f16(f)); }
inline float round_bf16(float f) { return bf16_to_f(f_to_bf16(f)); }
template <class T> inline T s_max(T a, T b) { return (a > b || a != a) ? a : b; }
template <class T> inline T s_min(T a, T b) { return (a < b || a != a) ? a : b; }
template <class T> inline T s_relu(T a) { return a < T(0) ? T(0) : a; }
template <class T> inline T s_abs(T a) { return a < T(0) ? -a : a; }
using std::tanh; using std::exp; using std::sqrt;
inline float tanhf_(float x) { return std::tanh(x); }
// The outer template's needs (blocks run one after another, so the grid form's counter and
// partials need no ordering beyond program order).
#include <algorithm>
#include <atomic>
using std::max;
using std::isfinite;
using std::fmax;
using std::min;
inline float __fdividef(float a, float b) { return a / b; }
inline float div_checked(float a, float b, bool&) { return a / b; }  // the IEEE quotient its fast path equals
inline float div_rn(float a, float b) { return a / b; }
inline float div_wide(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.f / std::sqrt(x); }
struct Welford { float n, mean, m2; };
inline Welford welford_merge(const Welford& a, const Welford& b) {
  const float n = a.n + b.n, f = n > 0.f ? __fdividef(b.n, n) : 0.f, d = b.mean - a.mean;
  return {n, a.mean + d * f, a.m2 + b.m2 + d * d * a.n * f};
}
// Warp shuffles: the lanes of a warp (every lane calls them together: full masks only) trade
// values through one slot per thread between two waits on their warp's barrier (a block of
// fewer than 32 threads: one barrier of them all), so warps that branch apart (warp 0 alone
// combining the warps' partials) shuffle among themselves.
inline unsigned long long g_shfl_slots[1024];
extern std::barrier<>* g_warp_barrier[32];
template <class T> inline T sim_shfl(T v, unsigned src) {
  static_assert(sizeof(T) <= 8);
  unsigned long long u = 0;
  std::memcpy(&u, &v, sizeof v);
  g_shfl_slots[threadIdx.x] = u;
  g_warp_barrier[threadIdx.x / 32]->arrive_and_wait();
  const unsigned long long w = g_shfl_slots[(threadIdx.x & ~31u) | (src & 31u)];
  g_warp_barrier[threadIdx.x / 32]->arrive_and_wait();
  T r;
  std::memcpy(&r, &w, sizeof r);
  return r;
}
template <class T> inline T __shfl_xor_sync(unsigned, T v, int o) { return sim_shfl(v, (threadIdx.x & 31u) ^ (unsigned)o); }
template <class T> inline T __shfl_sync(unsigned, T v, int lane, int width = 32) {
  return sim_shfl(v, ((threadIdx.x & 31u) & ~(unsigned)(width - 1)) + ((unsigned)lane & (unsigned)(width - 1)));
}
inline void __syncwarp(unsigned = 0xffffffffu) { g_warp_barrier[threadIdx.x / 32]->arrive_and_wait(); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
// The full reductions' grid combine (blocks run one after another; thread 0 alone adds).
inline float atomicAdd(float* p, float v) { const float o = *p; *p = o + v; return o; }
inline double atomicAdd(double* p, double v) { const double o = *p; *p = o + v; return o; }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { const auto o = *p; *p = o + v; return o; }
inline long long atomicMax(long long* p, long long v) { const auto o = *p; *p = std::max(o, v); return o; }
inline long long atomicMin(long long* p, long long v) { const auto o = *p; *p = std::min(o, v); return o; }
inline int atomicMax(int* p, int v) { const auto o = *p; *p = std::max(o, v); return o; }
inline int atomicMin(int* p, int v) { const auto o = *p; *p = std::min(o, v); return o; }
inline unsigned atomicMax(unsigned* p, unsigned v) { const auto o = *p; *p = std::max(o, v); return o; }
inline unsigned atomicMin(unsigned* p, unsigned v) { const auto o = *p; *p = std::min(o, v); return o; }
inline unsigned atomicExch(unsigned* p, unsigned v) { const auto o = *p; *p = v; return o; }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
template <class T> inline T __ldcg(const T* p) { return *p; }
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31));
}
// Native f16/bf16 arithmetic (one rounding of the exact result: double holds it for these
// operands), and the pair forms (element 2i in the low half).
inline u16 f16_add(u16 a, u16 b) { _Float16 r = (_Float16)((double)f16_to_f(a) + (double)f16_to_f(b)); u16 h; std::memcpy(&h, &r, 2); return h; }
inline u16 f16_sub(u16 a, u16 b) { _Float16 r = (_Float16)((double)f16_to_f(a) - (double)f16_to_f(b)); u16 h; std::memcpy(&h, &r, 2); return h; }
inline u16 f16_mul(u16 a, u16 b) { _Float16 r = (_Float16)((double)f16_to_f(a) * (double)f16_to_f(b)); u16 h; std::memcpy(&h, &r, 2); return h; }
inline u16 bf16_of_double(double d) { return f_to_bf16((float)d); }  // d exact in float for these products and most sums
inline u16 bf16_add(u16 a, u16 b) { return bf16_of_double((double)bf16_to_f(a) + (double)bf16_to_f(b)); }
inline u16 bf16_sub(u16 a, u16 b) { return bf16_of_double((double)bf16_to_f(a) - (double)bf16_to_f(b)); }
inline u16 bf16_mul(u16 a, u16 b) { return bf16_of_double((double)bf16_to_f(a) * (double)bf16_to_f(b)); }
#define SIM_PAIR(name, op) \
  inline unsigned name(unsigned a, unsigned b) { return (unsigned)op((u16)a, (u16)b) | ((unsigned)op((u16)(a >> 16), (u16)(b >> 16)) << 16); }
SIM_PAIR(f16x2_add, f16_add) SIM_PAIR(f16x2_sub, f16_sub) SIM_PAIR(f16x2_mul, f16_mul)
SIM_PAIR(bf16x2_add, bf16_add) SIM_PAIR(bf16x2_sub, bf16_sub) SIM_PAIR(bf16x2_mul, bf16_mul)
#undef SIM_PAIR
template <int V> inline void set_pair(Vec<u16, V>& v, int j2, unsigned w) { v.e[2 * j2] = (u16)w; v.e[2 * j2 + 1] = (u16)(w >> 16); }
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long b = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= (unsigned)((b >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
inline unsigned lanes_below(int e) { return e <= 0 ? 0u : e >= 32 ? ~0u : (1u << e) - 1u; }
inline unsigned window_lanes(int wi, int lo, int hi, int d) {
  return (lanes_below(hi - wi) & ~lanes_below(lo - wi)) | (lanes_below(hi + d - wi) & ~lanes_below(lo + d - wi));
}
// Activations (the exact forms; the fast ones where results are rounded to f16/bf16).
inline float __expf(float x) { return std::exp(x); }
inline float s_sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline float s_silu(float x) { return x / (1.0f + std::exp(-x)); }
inline float s_gelu_tanh(float x) { return 0.5f * x * (1.0f + std::tanh(0.79788456080286536f * (x + 0.044715f * x * x * x))); }
inline float fast_gelu_tanh(float x) { return x / (1.0f + std::exp(-1.5957691216057307f * (x + 0.044715f * x * x * x))); }
inline float fast_sigmoid(float x) { return s_sigmoid(x); }
inline float fast_silu(float x) { return s_silu(x); }
// div_f16: its rounding to f16 is the IEEE quotient's (exhaustive on the device).
inline float div_f16(float a, float b) { return a / b; }
// div_narrow: the reciprocal's product, its divisors outside [2^-126, 2^126] scaled (the same
// arithmetic).
inline float div_narrow(float a, float b) {
  const float m = std::fabs(b), s = m < 0x1p-126f ? 0x1p32f : m > 0x1p126f ? 0x1p-32f : 1.f;
  return a * (1.f / (b * s)) * s;
}

// The inner template's needs: shared memory at 32-bit addresses (offsets from an anchor in this
// object, whose statics, the kernel's __shared__ arrays among them, lie within 2 GiB of it),
// cp.async as a plain copy (the wait then has nothing to wait for), the read-only and cache-hint
// loads as plain ones, the reduction kinds and the warp combines.
inline char g_smem_anchor[16];
inline unsigned __cvta_generic_to_shared(const void* p) {
  return (unsigned)(uint64_t)((const char*)p - g_smem_anchor);
}
inline char* sim_smem(unsigned s) { return g_smem_anchor + (int32_t)s; }
template <class T> inline T ld_shared(unsigned s) {
  check_align(sim_smem(s), sizeof(T) > 16 ? 16 : sizeof(T));
  T v;
  std::memcpy(&v, sim_smem(s), sizeof v);
  return v;
}
template <class T> inline void st_shared(unsigned s, T v) {
  check_align(sim_smem(s), sizeof(T) > 16 ? 16 : sizeof(T));
  std::memcpy(sim_smem(s), &v, sizeof v);
}
template <class T> inline T ld_shared_elem(unsigned s) { return ld_shared<T>(s); }
template <class T> inline void st_shared_elem(unsigned s, T v) { st_shared<T>(s, v); }
template <int B> inline void cp_async(unsigned s, const void* gmem) {
  check_align(sim_smem(s), B);
  check_align(gmem, B);
  std::memcpy(sim_smem(s), gmem, B);
}
inline void cp_async_commit() {}
inline void cp_async_wait_all() {}
template <int N> inline void cp_async_wait() {}
struct float4 { float x, y, z, w; };
struct uint4 { unsigned x, y, z, w; };
struct uint2 { unsigned x, y; };
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class E, int V> inline Vec<E, V> ld_vec_nc(const E* p) { return ld_vec<E, V>(p); }
template <int V> inline unsigned row_lanes(int col0, int C) {
  const int lo = col0 < 0 ? -col0 : 0, hi = C - col0 < V ? C - col0 : V;
  return hi > lo ? (0xffffffffu >> (32 - hi)) & (0xffffffffu << lo) : 0u;
}
template <class E, int V, int G> inline Vec<E, V> ld_row(const E* p, unsigned lanes) {
  Vec<E, V> v;
  if (lanes == (1u << V) - 1) {
    for (int g = 0; g < V; g += G) {
      const Vec<E, G> part = ld_vec<E, G>(p + g);
      for (int k = 0; k < G; ++k) v.e[g + k] = part.e[k];
    }
  } else {
    for (int j = 0; j < V; ++j) v.e[j] = (lanes >> j & 1) ? p[j] : E(0);
  }
  return v;
}
template <int V, int G> inline Vec<unsigned, V / 2> ld_row_pairs(const u16* p, unsigned lanes) {
  Vec<unsigned, V / 2> v;
  if (lanes == (1u << V) - 1) {
    if constexpr (G >= 2) {
      for (int g = 0; g < V / 2; g += G / 2) {
        const Vec<unsigned, G / 2> part = ld_vec<unsigned, G / 2>((const unsigned*)(p + 2 * g));
        for (int k = 0; k < G / 2; ++k) v.e[g + k] = part.e[k];
      }
    } else {
      for (int w = 0; w < V / 2; ++w) v.e[w] = (unsigned)p[2 * w] | ((unsigned)p[2 * w + 1] << 16);
    }
  } else {
    for (int w = 0; w < V / 2; ++w)
      v.e[w] = (unsigned)((lanes >> (2 * w) & 1) ? p[2 * w] : (u16)0) |
               ((unsigned)((lanes >> (2 * w + 1) & 1) ? p[2 * w + 1] : (u16)0) << 16);
  }
  return v;
}
template <class E, int V> inline void st_row(E* p, const Vec<E, V>& v, unsigned lanes) {
  if (lanes == (1u << V) - 1) {
    st_vec<E, V>(p, v);
  } else {
    for (int j = 0; j < V; ++j)
      if (lanes >> j & 1) p[j] = v.e[j];
  }
}
inline float s_max(float a, float b) { return (a > b || a != a) ? a : b; }
inline float s_min(float a, float b) { return (a < b || a != a) ? a : b; }
inline float s_abs(float a) { return std::fabs(a); }
struct RedSum { template <class T> static T id() { return T(0); }
                template <class T> static T op(T a, T b) { return a + b; } };
struct RedMax { template <class T> static T id() { return -__int_as_float(0x7f800000); }
                template <class T> static T op(T a, T b) { return s_max(a, b); } };
struct RedMin { template <class T> static T id() { return __int_as_float(0x7f800000); }
                template <class T> static T op(T a, T b) { return s_min(a, b); } };
inline void atomic_combine(RedSum, float* a, float v) { atomicAdd(a, v); }
inline void atomic_combine(RedMax, float* a, float v) {
  if (v != v) { atomicExch(reinterpret_cast<unsigned*>(a) + 1, 1u); return; }
  if (v >= 0.0f) atomicMax(reinterpret_cast<int*>(a), (int)__float_as_uint(v));
  else atomicMin(reinterpret_cast<unsigned*>(a), __float_as_uint(v));
}
inline void atomic_combine(RedMin, float* a, float v) {
  if (v != v) { atomicExch(reinterpret_cast<unsigned*>(a) + 1, 1u); return; }
  if (v >= 0.0f) atomicMin(reinterpret_cast<int*>(a), (int)__float_as_uint(v));
  else atomicMax(reinterpret_cast<unsigned*>(a), __float_as_uint(v));
}
inline void atomic_combine(RedSum, double* a, double v) { *a += v; }
inline void atomic_combine(RedMax, double* a, double v) { if (!(*a != *a) && (v > *a || v != v)) *a = v; }
inline void atomic_combine(RedMin, double* a, double v) { if (!(*a != *a) && (v < *a || v != v)) *a = v; }
template <class R, int WIDTH, class T> inline T warp_reduce(T v) {
  for (int o = WIDTH / 2; o > 0; o >>= 1) v = R::op(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
inline Welford to_welford(float4 v) { return {v.x, v.y, v.z}; }
inline void welford_add(Welford& w, float x) {
  w.n += 1.f;
  const float d = x - w.mean;
  w.mean += __fdividef(d, w.n);
  w.m2 += d * (x - w.mean);
}
template <int WIDTH> inline Welford warp_welford(Welford w) {
  for (int o = WIDTH / 2; o > 0; o >>= 1)
    w = welford_merge(w, {__shfl_xor_sync(0xffffffffu, w.n, o), __shfl_xor_sync(0xffffffffu, w.mean, o),
                          __shfl_xor_sync(0xffffffffu, w.m2, o)});
  return {__shfl_sync(0xffffffffu, w.n, 0, WIDTH), __shfl_sync(0xffffffffu, w.mean, 0, WIDTH),
          __shfl_sync(0xffffffffu, w.m2, 0, WIDTH)};
}
