
// ---- solder device runtime ----
typedef unsigned char u8;
typedef unsigned short u16;
typedef long long i64;

template <class E, int V> struct __align__(sizeof(E) * V) Vec { E e[V]; };

// Plain loads: the read-only path (__ldg) measured no faster here (W1 H=4096 45.5 against
// 45.9 us, H200) and took registers: W1 H=16384 spilled at 512 threads with it.
template <class E, int V> __device__ __forceinline__ Vec<E, V> ld_vec(const E* p) {
  return *reinterpret_cast<const Vec<E, V>*>(p);
}
// Asynchronous copies into shared memory (cp.async): a row prefetched this way waits in shared
// memory rather than in registers. Each thread reads back only what it copied, after
// cp_async_wait_all, so no barrier is needed; the memory clobbers keep the compiler from
// moving this thread's shared-memory reads of a slot past the copy that refills it. Slots are
// 32-bit shared-window addresses: NVRTC keeps generic pointers into shared memory in 64 bits
// (nvcc does not), and W1 bf16 H=32768 spilled 24 bytes for those registers.
template <int B> __device__ __forceinline__ void cp_async(unsigned s, const void* gmem) {
  if constexpr (B == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(s), "l"(gmem), "n"(B) : "memory");
}
// Shared-memory loads and stores at 32-bit addresses (see cp_async). Volatile: they keep their
// order with the copies, the waits and the barriers around them.
template <class T> __device__ __forceinline__ T ld_shared(unsigned s) {
  union { T v; unsigned w[sizeof(T) / 4]; } u;
  if constexpr (sizeof(T) == 16)
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(u.w[0]), "=r"(u.w[1]), "=r"(u.w[2]), "=r"(u.w[3]) : "r"(s));
  else if constexpr (sizeof(T) == 8)
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(u.w[0]), "=r"(u.w[1]) : "r"(s));
  else
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(u.w[0]) : "r"(s));
  return u.v;
}
template <class T> __device__ __forceinline__ void st_shared(unsigned s, T v) {
  union { T v; unsigned w[sizeof(T) / 4]; } u;
  u.v = v;
  if constexpr (sizeof(T) == 16)
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(s), "r"(u.w[0]), "r"(u.w[1]), "r"(u.w[2]), "r"(u.w[3]));
  else if constexpr (sizeof(T) == 8)
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(s), "r"(u.w[0]), "r"(u.w[1]));
  else
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(s), "r"(u.w[0]));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
// Until at most N of this thread's latest groups are pending (the weight ring: weight_ring.h).
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
// Operands that vary only along the row (weights) through the read-only path: ptxas then knows
// no store of the row's output touches them and loads the next vectors' weights before this
// vector's stores (W1 H=4096: the pass after the statistics waited on each vector's weights).
template <class E, int V> __device__ __forceinline__ Vec<E, V> ld_vec_nc(const E* p) {
  constexpr int B = sizeof(E) * V;
  union { Vec<E, V> v; uint4 q; uint2 d; unsigned w; } u;
  if constexpr (B == 16) u.q = __ldg(reinterpret_cast<const uint4*>(p));
  else if constexpr (B == 8) u.d = __ldg(reinterpret_cast<const uint2*>(p));
  else if constexpr (B == 4) u.w = __ldg(reinterpret_cast<const unsigned*>(p));
  else return ld_vec<E, V>(p);
  return u.v;
}
// Vector stores through explicit PTX: left to itself the compiler splits a vector of 16-bit
// elements built lane by lane into several narrow stores. No memory clobber: outputs never
// alias inputs, so loads may still be hoisted above these stores.
template <class E, int V> __device__ __forceinline__ void st_vec(E* p, const Vec<E, V>& v) {
  constexpr int B = sizeof(E) * V;
  if constexpr (B == 16 || B == 8 || B == 4) {
    union { Vec<E, V> v; unsigned w[B / 4]; } u;
    u.v = v;
    if constexpr (B == 16)
      asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(u.w[0]), "r"(u.w[1]), "r"(u.w[2]),
                   "r"(u.w[3]));
    else if constexpr (B == 8)
      asm volatile("st.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(u.w[0]), "r"(u.w[1]));
    else
      asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(u.w[0]));
  } else {
    *reinterpret_cast<Vec<E, V>*>(p) = v;
  }
}

// Phase-shifted rows (persistent kernels whose rows do not start vector-aligned): a row's
// vectors are the aligned ones that overlap it, so only its first and last are partial.
// `lanes` has bit j set when element j of a vector lies inside the row.
template <int V> __device__ __forceinline__ unsigned row_lanes(int col0, int C) {
  const int lo = col0 < 0 ? -col0 : 0, hi = C - col0 < V ? C - col0 : V;
  return hi > lo ? (0xffffffffu >> (32 - hi)) & (0xffffffffu << lo) : 0u;
}
// A vector of the row at p (aligned to G elements): G elements per load when whole, else
// element by element (zero outside the row; nothing outside it is read). Element by element,
// the partial path stays a branch apart: loading chunks of G, the compiler merged it into the
// whole path (rms bf16 H=5140: 93% of a copy against 83%, H200).
template <class E, int V, int G> __device__ __forceinline__ Vec<E, V> ld_row(const E* p, unsigned lanes) {
  Vec<E, V> v;
  if (lanes == (1u << V) - 1) {
#pragma unroll
    for (int g = 0; g < V; g += G) {
      const Vec<E, G> part = ld_vec<E, G>(p + g);
#pragma unroll
      for (int k = 0; k < G; ++k) v.e[g + k] = part.e[k];
    }
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) v.e[j] = (lanes >> j & 1) ? p[j] : E(0);
  }
  return v;
}
// The same for 16-bit elements held as pairs (see Writer::in_pairs): whole words, no re-packing.
template <int V, int G> __device__ __forceinline__ Vec<unsigned, V / 2> ld_row_pairs(const u16* p, unsigned lanes) {
  Vec<unsigned, V / 2> v;
  if (lanes == (1u << V) - 1) {
    if constexpr (G >= 2) {
#pragma unroll
      for (int g = 0; g < V / 2; g += G / 2) {
        const Vec<unsigned, G / 2> part = ld_vec<unsigned, G / 2>((const unsigned*)(p + 2 * g));
#pragma unroll
        for (int k = 0; k < G / 2; ++k) v.e[g + k] = part.e[k];
      }
    } else {
#pragma unroll
      for (int w = 0; w < V / 2; ++w) v.e[w] = (unsigned)p[2 * w] | ((unsigned)p[2 * w + 1] << 16);
    }
  } else {
#pragma unroll
    for (int w = 0; w < V / 2; ++w)
      v.e[w] = (unsigned)((lanes >> (2 * w) & 1) ? p[2 * w] : (u16)0) |
               ((unsigned)((lanes >> (2 * w + 1) & 1) ? p[2 * w + 1] : (u16)0) << 16);
  }
  return v;
}
template <class E, int V> __device__ __forceinline__ void st_row(E* p, const Vec<E, V>& v, unsigned lanes) {
  if (lanes == (1u << V) - 1) {
    st_vec<E, V>(p, v);
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (lanes >> j & 1) p[j] = v.e[j];
  }
}

// f16: PTX cvt rounds to nearest even.
__device__ __forceinline__ float f16_to_f(u16 h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ u16 f_to_f16(float f) { u16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
// Native f16 arithmetic, round to nearest even, subnormals kept (no .ftz).
__device__ __forceinline__ u16 f16_add(u16 a, u16 b) { u16 r; asm("add.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); return r; }
__device__ __forceinline__ u16 f16_sub(u16 a, u16 b) { u16 r; asm("sub.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); return r; }
__device__ __forceinline__ u16 f16_mul(u16 a, u16 b) { u16 r; asm("mul.rn.f16 %0, %1, %2;" : "=h"(r) : "h"(a), "h"(b)); return r; }
__device__ __forceinline__ float bf16_to_f(u16 h) { return __int_as_float(((unsigned)h) << 16); }
__device__ __forceinline__ u16 f_to_bf16(float f) { u16 h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
// Native bf16 arithmetic as one fma (sm_80 has bf16 fma; add and mul come only with sm_90):
// a + b = fma(a, 1, b), a - b = fma(b, -1, a), a * b = fma(a, b, -0). One rounding each, the
// plain op's signs of zero, subnormals kept (bf16 fma has no .ftz).
__device__ __forceinline__ u16 bf16_add(u16 a, u16 b) { u16 r; asm("fma.rn.bf16 %0, %1, %3, %2;" : "=h"(r) : "h"(a), "h"(b), "h"((u16)0x3F80)); return r; }
__device__ __forceinline__ u16 bf16_sub(u16 a, u16 b) { u16 r; asm("fma.rn.bf16 %0, %2, %3, %1;" : "=h"(r) : "h"(a), "h"(b), "h"((u16)0xBF80)); return r; }
__device__ __forceinline__ u16 bf16_mul(u16 a, u16 b) { u16 r; asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(a), "h"(b), "h"((u16)0x8000)); return r; }
// Two elements per 32-bit register (element 2i in the low half): the element loops work on
// pairs where they can, one instruction for both, and hold and store the pairs as they are.
__device__ __forceinline__ unsigned f16x2_add(unsigned a, unsigned b) { unsigned r; asm("add.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ unsigned f16x2_sub(unsigned a, unsigned b) { unsigned r; asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ unsigned f16x2_mul(unsigned a, unsigned b) { unsigned r; asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ unsigned bf16x2_add(unsigned a, unsigned b) { unsigned r; asm("fma.rn.bf16x2 %0, %1, %3, %2;" : "=r"(r) : "r"(a), "r"(b), "r"(0x3F803F80u)); return r; }
__device__ __forceinline__ unsigned bf16x2_sub(unsigned a, unsigned b) { unsigned r; asm("fma.rn.bf16x2 %0, %2, %3, %1;" : "=r"(r) : "r"(a), "r"(b), "r"(0xBF80BF80u)); return r; }
__device__ __forceinline__ unsigned bf16x2_mul(unsigned a, unsigned b) { unsigned r; asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(0x80008000u)); return r; }
// Element h (0: low, 1: high) of a pair. A bf16 widens from the pair in one instruction (a
// mask or a shift); through a 16-bit value it took two, and registers: W1 bf16 H=16384 spilled.
struct Half {
  unsigned w;
  int h;
  __device__ __forceinline__ operator u16() const { return (u16)(w >> (16 * h)); }
};
__device__ __forceinline__ Half half_of(unsigned pair, int h) { return {pair, h}; }
// The lanes j of a vector whose first lies at wi (< d) along a dim of d that fall in [lo, hi),
// the lanes wrapping once past d, as bits: once per vector, then one test a lane (a RoPE's odd
// halves under a shift plan wrapped and compared each lane's index: five instructions a lane).
__device__ __forceinline__ unsigned lanes_below(int e) {  // lanes j < e; e may be < 0 or > 31
  unsigned r;
  asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(0xffffffffu), "r"((unsigned)max(e, 0)));  // clamps at 32
  return ~r;
}
__device__ __forceinline__ unsigned window_lanes(int wi, int lo, int hi, int d) {
  return (lanes_below(hi - wi) & ~lanes_below(lo - wi)) | (lanes_below(hi + d - wi) & ~lanes_below(lo + d - wi));
}
// Pair j2 of a 16-bit vector set as one word (element by element, ptxas split and re-packed it).
template <int V> __device__ __forceinline__ void set_pair(Vec<u16, V>& v, int j2, unsigned w) {
  union { Vec<u16, V> v; unsigned w[V / 2]; } u;
  u.v = v;
  u.w[j2] = w;
  v = u.v;
}
// Two floats rounded to one pair of 16-bit elements in one instruction. Packed from two
// 16-bit conversions, ptxas saw through the pair and kept each half in a register of its own
// (the outer_norm template's held cuts spilled so).
__device__ __forceinline__ unsigned f16_pair(float lo, float hi) {
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ unsigned bf16_pair(float lo, float hi) {
  unsigned r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
__device__ __forceinline__ float bf16_to_f(Half x) { return __int_as_float(x.h ? x.w & 0xffff0000u : x.w << 16); }
// A value held across passes widens through inline PTX, again at each use: as plain C++ the
// compiler kept the values the first pass had widened for the later ones (a float per element
// instead of half a register; W1 bf16 H=65536 spilled 332 B and fell to the looped row).
__device__ __forceinline__ float held_bf16_to_f(Half x) {
  unsigned r;
  if (x.h) asm("and.b32 %0, %1, 0xffff0000;" : "=r"(r) : "r"(x.w));
  else asm("shl.b32 %0, %1, 16;" : "=r"(r) : "r"(x.w));
  return __int_as_float(r);
}

// fp8 (OCP): hardware converts with .satfinite; PyTorch's cast is non-saturating, so values
// whose magnitude rounds past the largest finite become NaN (e4m3fn) or Inf (e5m2).
__device__ __forceinline__ u8 f_to_e4m3(float f) {
  u16 r; asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(0.0f), "f"(f));
  u8 b = (u8)(r & 0xff);
  if (fabsf(f) > 464.0f) b = (u8)(0x7f | (b & 0x80));  // exactly 464 ties to even: 448
  return b;
}
__device__ __forceinline__ u8 f_to_e5m2(float f) {
  u16 r; asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(0.0f), "f"(f));
  u8 b = (u8)(r & 0xff);
  if (fabsf(f) >= 61440.0f) b = (u8)(0x7c | (b & 0x80));
  return b;
}
__device__ __forceinline__ float e4m3_to_f(u8 b) {
  unsigned r; u16 in = b; asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(in));
  return f16_to_f((u16)(r & 0xffff));
}
__device__ __forceinline__ float e5m2_to_f(u8 b) {
  unsigned r; u16 in = b; asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(in));
  return f16_to_f((u16)(r & 0xffff));
}
// "Round to dtype" while staying in float registers (each op's result is rounded once).
__device__ __forceinline__ float round_f16(float f) { return f16_to_f(f_to_f16(f)); }
// bf16 as one cvt.rn.bf16x2.f32 of (f, 0): the word whose high half is f's bf16 and low half 0 is
// that bf16 as a float. cvt.rn.bf16.f32 and the shift back took two instructions, the first on the
// conversion pipe that MUFU shares (15 a clock an SM against 53 for this, H200); the two agree on
// all 2^32 floats, NaNs and -0 included (H200, exhaustive).
__device__ __forceinline__ float round_bf16(float f) {
  unsigned r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(f), "f"(0.0f));
  return __int_as_float(r);
}
__device__ __forceinline__ float round_e4m3(float f) { return e4m3_to_f(f_to_e4m3(f)); }
__device__ __forceinline__ float round_e5m2(float f) { return e5m2_to_f(f_to_e5m2(f)); }

// Math with PyTorch's NaN rules (max/min/clamp propagate NaN).
template <class T> __device__ __forceinline__ T s_max(T a, T b) { return (a > b || a != a) ? a : b; }
template <class T> __device__ __forceinline__ T s_min(T a, T b) { return (a < b || a != a) ? a : b; }
template <class T> __device__ __forceinline__ T s_relu(T a) { return a < T(0) ? T(0) : a; }
template <class T> __device__ __forceinline__ T s_abs(T a) { return a < T(0) ? -a : a; }
// f32: one instruction each (max.NaN / min.NaN propagate NaN; fabsf clears the sign of -0 too).
__device__ __forceinline__ float s_max(float a, float b) { float r; asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
__device__ __forceinline__ float s_min(float a, float b) { float r; asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
__device__ __forceinline__ float s_abs(float a) { return fabsf(a); }
__device__ __forceinline__ float s_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
__device__ __forceinline__ double s_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
__device__ __forceinline__ float s_gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
__device__ __forceinline__ double s_gelu(double x) { return 0.5 * x * (1.0 + erf(x * 0.70710678118654752)); }
__device__ __forceinline__ float s_gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
}
__device__ __forceinline__ double s_gelu_tanh(double x) {
  return 0.5 * x * (1.0 + tanh(0.79788456080286536 * (x + 0.044715 * x * x * x)));
}
__device__ __forceinline__ float s_silu(float x) { return x / (1.0f + expf(-x)); }
__device__ __forceinline__ double s_silu(double x) { return x / (1.0 + exp(-x)); }

// Hardware approximations, used only where the result is rounded to f16/bf16 right after, or
// where every result of the kernel is (ExprEmitter::set_narrow_results).
// 1 + e^-x with ex2 flushing subnormal results to 0: 1 + d rounds to 1 for every d < 2^-126, so
// the sum is __expf's bit for bit, without the three instructions that keep __expf's subnormals.
__device__ __forceinline__ float one_plus_exp_neg(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(__fmul_rn(-x, 1.4426950408889634f)));
  return 1.0f + r;
}
// a / b for values a, b of f16 whose quotient is rounded to f16 by every reader: the hardware's
// reciprocal y, q0 = a y and one correction by the exact remainder a - q0 b. Rounded to f16 it
// equals the correctly rounded quotient's rounding for all 2^32 pairs (H200, exhaustive:
// bench/experiments/f16_div_check.cu; not bf16's, whose tiny divisors overflow y); where q0 is
// zero, infinite or NaN (a or b zero, infinite or NaN) q0 is the quotient. Four instructions and
// a select, no branch, where the IEEE division takes a refinement and a slow-path branch. The
// reciprocal flushes subnormals: an f16 value's reciprocal is never an f32 subnormal, nor is
// the value, so it equals the unflushed one, which ptxas wraps in six range instructions.
__device__ __forceinline__ float div_f16(float a, float b) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(b));
  const float q0 = __fmul_rn(a, y), q1 = __fmaf_rn(__fmaf_rn(-q0, b, a), y, q0), m = fabsf(q0);
  return m > 0.f && m < __int_as_float(0x7f800000) ? q1 : q0;
}
// a / b for an f32 quotient that every result rounds to f16, bf16 or fp8: a times the hardware
// reciprocal (within 2 ulp of f32, far below those dtypes' rounding; zero, infinite and NaN
// operands give the IEEE quotient's class). A divisor whose reciprocal would overflow or be
// subnormal (|b| under 2^-126 or over 2^126) is scaled by 2^32 or 2^-32 first, so the flushing
// reciprocal serves (the unflushed one costs six range instructions more). No refinement and no
// slow-path branch, which also leaves ptxas free to interleave a row's elements (perf-notes:
// softmaxes, bool-masked ones most).
__device__ __forceinline__ float div_narrow(float a, float b) {
  const float m = fabsf(b), s = m < 0x1p-126f ? 0x1p32f : m > 0x1p126f ? 0x1p-32f : 1.f;
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(b * s));
  return __fmul_rn(__fmul_rn(a, y), s);
}
// a / b, correctly rounded where `slow` stays unset: the IEEE division's own fast path (the
// hardware reciprocal refined once, the quotient corrected once by its exact remainder) without
// its range check's branch. `slow` is set where a (but a zero) or b lies outside [2^-62, 2^62],
// where the caller recomputes with a / b; a zero a keeps q0, whose sign is the quotient's. Equal
// to __fdiv_rn for every a against 1024 divisors (H200: bench/experiments/f32_div_vec.cu).
__device__ __forceinline__ float div_checked(float a, float b, bool& slow) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(b));
  y = __fmaf_rn(y, __fmaf_rn(-b, y, 1.f), y);
  const float q0 = __fmul_rn(a, y), q = __fmaf_rn(__fmaf_rn(-b, q0, a), y, q0);
  const unsigned ma = __float_as_uint(a) & 0x7fffffffu, mb = __float_as_uint(b) & 0x7fffffffu;
  constexpr unsigned lo = 0x20800000u, span = 0x5e800000u - 0x20800000u;  // 2^-62 .. 2^62
  slow |= (mb - lo > span) | ((ma - lo > span) & (ma != 0u));
  return ma == 0u ? q0 : q;
}
__device__ __forceinline__ float fast_sigmoid(float x) { return __fdividef(1.0f, one_plus_exp_neg(x)); }
__device__ __forceinline__ float fast_silu(float x) { return __fdividef(x, one_plus_exp_neg(x)); }
// gelu's tanh form as x * sigmoid(2u) (0.5 (1 + tanh u) is sigmoid(2u)): one exp and one
// reciprocal where tanhf takes two and a polynomial, and no cancellation where tanh u nears -1.
// 2u log2(e) as x (K + K' x^2) with the constants folded (one FMA; exp2 flushing as above): rounded
// to f16 or bf16, the same as x / (1 + __expf(-2u)) for all 65536 inputs of either (H200, exhaustive).
__device__ __forceinline__ float fast_gelu_tanh(float x) {
  constexpr float K = (float)(-1.5957691216057307 * 1.4426950408889634), K3 = (float)(-1.5957691216057307 * 1.4426950408889634 * 0.044715);
  float e, r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(__fmul_rn(x, __fmaf_rn(__fmul_rn(x, x), K3, K))));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
  return __fmul_rn(x, r);
}
// tanh of a bf16 value, rounded to bf16 by the caller: sm_90's tanh.approx then rounds as tanhf
// does for all 65536 bf16 inputs (H200, exhaustive; not f16's: 70 differ). One MUFU where
// tanhf takes fifteen instructions, two of them MUFU. Other chips keep tanhf (unchecked there).
__device__ __forceinline__ float tanh_bf16(float x) {
#if __CUDA_ARCH__ == 900
  float r;
  asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return tanhf(x);
#endif
}

// Reductions: identity and combine per kind.
struct RedSum { template <class T> __device__ static T id() { return T(0); }
                template <class T> __device__ static T op(T a, T b) { return a + b; } };
struct RedMax { template <class T> __device__ static T id() { return -__int_as_float(0x7f800000); }
                template <class T> __device__ static T op(T a, T b) { return s_max(a, b); } };
struct RedMin { template <class T> __device__ static T id() { return __int_as_float(0x7f800000); }
                template <class T> __device__ static T op(T a, T b) { return s_min(a, b); } };

// Combine across `width` consecutive lanes (a power of two <= 32).
template <class R, int WIDTH, class T> __device__ __forceinline__ T warp_reduce(T v) {
#pragma unroll
  for (int o = WIDTH / 2; o > 0; o >>= 1) v = R::op(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Welford's running mean and sum of squared deviations (var_mean of looped rows: one pass over
// the row) and Chan's merge of two such partials; n counts elements (exact in f32 below 2^24).
struct Welford { float n, mean, m2; };
__device__ __forceinline__ Welford to_welford(float4 v) { return {v.x, v.y, v.z}; }
__device__ __forceinline__ void welford_add(Welford& w, float x) {
  w.n += 1.f;
  const float d = x - w.mean;
  w.mean += __fdividef(d, w.n);
  w.m2 += d * (x - w.mean);
}
__device__ __forceinline__ Welford welford_merge(const Welford& a, const Welford& b) {
  const float n = a.n + b.n, f = n > 0.f ? __fdividef(b.n, n) : 0.f, d = b.mean - a.mean;
  return {n, a.mean + d * f, a.m2 + b.m2 + d * d * a.n * f};
}
template <int WIDTH> __device__ __forceinline__ Welford warp_welford(Welford w) {
#pragma unroll
  for (int o = WIDTH / 2; o > 0; o >>= 1)
    w = welford_merge(w, {__shfl_xor_sync(0xffffffffu, w.n, o), __shfl_xor_sync(0xffffffffu, w.mean, o),
                          __shfl_xor_sync(0xffffffffu, w.m2, o)});
  // The merge is not symmetric in rounding: every lane takes lane 0's result.
  return {__shfl_sync(0xffffffffu, w.n, 0, WIDTH), __shfl_sync(0xffffffffu, w.mean, 0, WIDTH),
          __shfl_sync(0xffffffffu, w.m2, 0, WIDTH)};
}

#if __CUDA_ARCH__ >= 900
// Thread-block clusters: a row split over a cluster's blocks (KernelParams::cluster) combines
// its reductions through distributed shared memory (see combine_across_cluster).
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// Whole-cluster barrier: after the mbarriers' initialisation, and before a block exits (no block
// may leave while another can still write into its shared memory).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// The same barrier split, so that work goes on between the arrival and the wait (outer_norm:
// the mbarriers' set-up before the first push; the last exchange before a block leaves).
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
// Pushed partials: a block writes its partial into every cluster block's shared memory with
// st.async, which counts the bytes on the receiver's mbarrier; each block then waits on its own
// mbarrier, not on a cluster barrier, whose release waited for the block's loads in flight (the
// next row's prefetch; ncu on W1 f32 65536: membar stalls).
__device__ __forceinline__ void mbar_init(unsigned b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
__device__ __forceinline__ void mbar_expect(unsigned b, unsigned bytes) {
  asm volatile("{\n\t.reg .b64 s;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 s, [%0], %1;\n\t}" ::"r"(b), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned b, unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(b), "r"(parity) : "memory");
  } while (!done);
}
template <class T> __device__ __forceinline__ void push_cluster(unsigned s, unsigned b, unsigned rank, T v) {
  unsigned a, m;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(s), "r"(rank));
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(m) : "r"(b), "r"(rank));
  union { T v; unsigned w[sizeof(T) / 4]; } u;
  u.v = v;
  if constexpr (sizeof(T) == 16)
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
                 ::"r"(a), "r"(u.w[0]), "r"(u.w[1]), "r"(u.w[2]), "r"(u.w[3]), "r"(m) : "memory");
  else if constexpr (sizeof(T) == 8)
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
                 ::"r"(a), "r"(u.w[0]), "r"(u.w[1]), "r"(m) : "memory");
  else
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(a), "r"(u.w[0]), "r"(m) : "memory");
}
#endif

// Rows split over blocks of the grid (KernelParams::row_split): a block has stored its partial
// (st.cg, to L2), then arrives on its row's counter and waits until `target` arrivals (every
// block of the row at this exchange). Blocks take their rows in the order they start (a counter),
// so a block waits only on running blocks or the rest of its own row: the wait ends wherever
// the device can hold a row's blocks at once.
__device__ __forceinline__ unsigned ld_acquire_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void grid_arrive_wait(unsigned* count, unsigned target) {
  __threadfence();
  atomicAdd(count, 1u);
  while (ld_acquire_gpu(count) < target) __nanosleep(32);
  __threadfence();
}

// Grid-wide float accumulation: one atomic per warp. max/min use the ordered-int trick, which
// is exact for every non-NaN float; a NaN is recorded in a flag word so it still propagates.
__device__ __forceinline__ void atomic_combine(RedSum, float* a, float v) { atomicAdd(a, v); }
__device__ __forceinline__ void atomic_combine(RedMax, float* a, float v) {
  if (v != v) { atomicExch(reinterpret_cast<unsigned*>(a) + 1, 1u); return; }
  if (v >= 0.0f) atomicMax(reinterpret_cast<int*>(a), __float_as_int(v));
  else atomicMin(reinterpret_cast<unsigned*>(a), __float_as_uint(v));
}
__device__ __forceinline__ void atomic_combine(RedMin, float* a, float v) {
  if (v != v) { atomicExch(reinterpret_cast<unsigned*>(a) + 1, 1u); return; }
  if (v >= 0.0f) atomicMin(reinterpret_cast<int*>(a), __float_as_int(v));
  else atomicMax(reinterpret_cast<unsigned*>(a), __float_as_uint(v));
}
// f64: sum by the native atomic, max/min by compare-and-swap (NaN, once stored, stays).
__device__ __forceinline__ void atomic_combine(RedSum, double* a, double v) { atomicAdd(a, v); }
template <bool MAX> __device__ __forceinline__ void atomic_extreme(double* a, double v) {
  unsigned long long* p = reinterpret_cast<unsigned long long*>(a);
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    double cur = __longlong_as_double(assumed);
    if (!((MAX ? v > cur : v < cur) || v != v) || cur != cur) return;
    old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(v));
  } while (assumed != old);
}
__device__ __forceinline__ void atomic_combine(RedMax, double* a, double v) { atomic_extreme<true>(a, v); }
__device__ __forceinline__ void atomic_combine(RedMin, double* a, double v) { atomic_extreme<false>(a, v); }
// ---- end of runtime ----
