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
inline float f16_to_f(u16 h) { _Float16 f; std::memcpy(&f, &h, 2); return (float)f; }
inline u16 f_to_f16(float x) { _Float16 f = (_Float16)x; u16 h; std::memcpy(&h, &f, 2); return h; }
inline float bf16_to_f(u16 h) { unsigned u = (unsigned)h << 16; return __uint_as_float(u); }
inline u16 f_to_bf16(float x) { unsigned u = __float_as_uint(x); if (std::isnan(x)) return 0x7fc0; u += 0x7fffu + ((u >> 16) & 1u); return (u16)(u >> 16); }
struct Half { unsigned w; int h; operator u16() const { return (u16)(w >> (16 * h)); } };
inline Half half_of(unsigned pair, int h) { return {pair, h}; }
inline float bf16_to_f(Half x) { return bf16_to_f((u16)x); }
inline float f16_to_f(Half x) { return f16_to_f((u16)x); }
inline float held_bf16_to_f(Half x) { return bf16_to_f((u16)x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline float tanh_approx(float x) { return std::tanh(x); }
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
using std::min;
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.f / std::sqrt(x); }
struct Welford { float n, mean, m2; };
inline Welford welford_merge(const Welford& a, const Welford& b) {
  const float n = a.n + b.n, f = n > 0.f ? __fdividef(b.n, n) : 0.f, d = b.mean - a.mean;
  return {n, a.mean + d * f, a.m2 + b.m2 + d * d * a.n * f};
}
// Warp shuffles (the outer_norm template's lane combine): every thread of the block calls them
// together (uniform code), so a block-wide exchange through one slot per thread stands in.
inline unsigned long long g_shfl_slots[1024];
template <class T> inline T __shfl_xor_sync(unsigned, T v, int o) {
  unsigned long long u = 0;
  std::memcpy(&u, &v, sizeof v);
  g_shfl_slots[threadIdx.x] = u;
  g_barrier->arrive_and_wait();
  const unsigned long long w = g_shfl_slots[threadIdx.x ^ (unsigned)o];
  g_barrier->arrive_and_wait();
  T r;
  std::memcpy(&r, &w, sizeof r);
  return r;
}
template <class T> inline T __shfl_sync(unsigned, T v, int lane, int width = 32) {
  unsigned long long u = 0;
  std::memcpy(&u, &v, sizeof v);
  g_shfl_slots[threadIdx.x] = u;
  g_barrier->arrive_and_wait();
  const unsigned long long w = g_shfl_slots[(threadIdx.x & ~(unsigned)(width - 1)) + (unsigned)lane];
  g_barrier->arrive_and_wait();
  T r;
  std::memcpy(&r, &w, sizeof r);
  return r;
}
// The inner template's reductions (as the runtime's, over the mocked shuffles).
struct RedSum { template <class T> static T id() { return T(0); } template <class T> static T op(T a, T b) { return a + b; } };
struct RedMax { template <class T> static T id() { return -__int_as_float(0x7f800000); } template <class T> static T op(T a, T b) { return s_max(a, b); } };
struct RedMin { template <class T> static T id() { return __int_as_float(0x7f800000); } template <class T> static T op(T a, T b) { return s_min(a, b); } };
template <class R, int WIDTH, class T> inline T warp_reduce(T v) {
  for (int o = WIDTH / 2; o > 0; o >>= 1) v = R::op(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
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
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
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
// Activations (the exact forms; the fast ones where results are rounded to f16/bf16).
inline float __expf(float x) { return std::exp(x); }
inline float s_sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline float s_silu(float x) { return x / (1.0f + std::exp(-x)); }
inline float s_gelu_tanh(float x) { return 0.5f * x * (1.0f + std::tanh(0.79788456080286536f * (x + 0.044715f * x * x * x))); }
inline float fast_sigmoid(float x) { return s_sigmoid(x); }
inline float fast_silu(float x) { return s_silu(x); }
inline float fast_gelu_tanh(float x) { return s_gelu_tanh(x); }
