// GPU tier for the runtime: memory, kernel launch, allocator, cuBLASLt. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "runtime/blas.h"
#include "runtime/compiler.h"
#include "runtime/device_info.h"
#include "runtime/device_memory.h"
#include "runtime/loaded_kernel.h"
#include "runtime/driver.h"
#include "solder/error.h"

using namespace solder;

namespace {

class GpuRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!has_gpu()) GTEST_SKIP() << "no GPU: " << driver_unavailable_reason();
  }
  static void sync() { check_cuda(driver()->cuCtxSynchronize(), "cuCtxSynchronize"); }
};

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

uint16_t to_bf16(float f) {  // round to nearest even
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

float from_bf16(uint16_t h) {
  uint32_t bits = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <class T>
DeviceBuffer upload(const std::vector<T>& v) {
  DeviceBuffer b(v.size() * sizeof(T));
  copy_to_device(b.ptr(), v.data(), b.bytes());
  return b;
}

// Element (r, c) of op(X) for a row-major stored matrix with leading dim ld.
double at(const std::vector<float>& x, int64_t base, int64_t ld, bool trans, int64_t r, int64_t c) {
  return trans ? x[base + c * ld + r] : x[base + r * ld + c];
}

struct Problem {
  int64_t batch, m, n, k;
  bool ta, tb;
  MatmulStrides s;
  size_t a_elems() const { return (batch - 1) * s.batch_a + (ta ? k * s.lda : m * s.lda); }
  size_t b_elems() const { return (batch - 1) * s.batch_b + (tb ? n * s.ldb : k * s.ldb); }
  size_t c_elems() const { return (batch - 1) * s.batch_c + m * s.ldc; }
};

std::vector<double> reference(const Problem& p, const std::vector<float>& a, const std::vector<float>& b,
                              const std::vector<float>* bias, bool relu) {
  std::vector<double> c(p.c_elems(), 0.0);
  for (int64_t bi = 0; bi < p.batch; ++bi)
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        double acc = 0;
        for (int64_t l = 0; l < p.k; ++l)
          acc += at(a, bi * p.s.batch_a, p.s.lda, p.ta, i, l) * at(b, bi * p.s.batch_b, p.s.ldb, p.tb, l, j);
        if (bias) acc += (*bias)[j];
        if (relu) acc = std::max(acc, 0.0);
        c[bi * p.s.batch_c + i * p.s.ldc + j] = acc;
      }
  return c;
}

// Runs p in f32 (exact fp32 compute) and compares every output element.
void check_f32(const Problem& p, bool with_bias, bool relu) {
  auto a = random_floats(p.a_elems(), 1), b = random_floats(p.b_elems(), 2), bias = random_floats(p.n, 3);
  DeviceBuffer da = upload(a), db = upload(b), dbias = upload(bias);
  std::vector<float> sentinel(p.c_elems(), 12345.0f);  // padding between rows must stay untouched
  DeviceBuffer dc = upload(sentinel);
  blas_matmul(DType::F32, da.ptr(), db.ptr(), dc.ptr(), p.batch, p.m, p.n, p.k, p.s, p.ta, p.tb, nullptr,
              with_bias ? dbias.ptr() : 0, relu);
  std::vector<float> c(p.c_elems());
  copy_to_host(c.data(), dc.ptr(), dc.bytes());
  auto ref = reference(p, a, b, with_bias ? &bias : nullptr, relu);
  for (int64_t bi = 0; bi < p.batch; ++bi)
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        size_t idx = bi * p.s.batch_c + i * p.s.ldc + j;
        ASSERT_NEAR(c[idx], ref[idx], 1e-4 * p.k) << "batch " << bi << " (" << i << ", " << j << ")";
      }
  if (p.s.ldc > p.n) EXPECT_EQ(c[p.n], 12345.0f);  // first padding element
}

}  // namespace

TEST_F(GpuRuntime, DescribesTheDevice) {
  const DeviceInfo& d = current_device();
  EXPECT_FALSE(d.from_profile);
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.l2_bytes, 0);
  std::printf("device: %s\n", d.describe().c_str());
}

TEST_F(GpuRuntime, AllocCopyRoundTrip) {
  auto host = random_floats(100003, 7);
  DeviceBuffer buf = upload(host);
  EXPECT_NE(buf.ptr(), 0u);
  EXPECT_EQ(buf.bytes(), host.size() * sizeof(float));
  std::vector<float> back(host.size());
  copy_to_host(back.data(), buf.ptr(), buf.bytes());
  EXPECT_EQ(back, host);
}

TEST_F(GpuRuntime, OtherThreadsGetTheContext) {
  std::vector<float> back(16);
  std::thread t([&] {
    auto host = random_floats(16, 9);
    DeviceBuffer b = upload(host);
    copy_to_host(back.data(), b.ptr(), b.bytes());
    EXPECT_EQ(back, host);
  });
  t.join();
}

TEST_F(GpuRuntime, LaunchCompiledKernel) {
  const char* src = R"(
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";
  LoadedKernel k(compile_cuda(src, "vadd", current_device().arch()));
  int n = 10007;
  auto a = random_floats(n, 1), b = random_floats(n, 2);
  DeviceBuffer da = upload(a), db = upload(b), dc(n * sizeof(float));
  CUdeviceptr pa = da.ptr(), pb = db.ptr(), pc = dc.ptr();
  void* args[] = {&pa, &pb, &pc, &n};
  k.launch((n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args);
  sync();
  std::vector<float> c(n);
  copy_to_host(c.data(), pc, dc.bytes());
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  EXPECT_GT(k.max_active_blocks_per_sm(256, 0), 0);

  // A bad launch configuration is reported with the kernel's name.
  try {
    k.launch(1, 1, 1, 4096, 1, 1, 0, nullptr, args);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("in kernel vadd: CUDA_ERROR_"), std::string::npos) << e.what();
  }
}

// Where the compile log lacks ptxas's report, the loaded function's attributes stand in:
// registers, and local memory (spills: 64 live values under a 32-register cap) as spills.
TEST_F(GpuRuntime, ResourcesFromTheDriverWhereTheLogHasNone) {
  const char* src = R"(
extern "C" __global__ void plain(float* c) { c[threadIdx.x] *= 2.f; }
extern "C" __global__ void __launch_bounds__(1024, 2) pressure(float* c) {
  float v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) v[i] = c[threadIdx.x + i * 1024];
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += v[i] * v[63 - i] * c[i];
#pragma unroll
  for (int i = 0; i < 64; ++i) c[threadIdx.x + i * 1024] = v[i] * s;
}
)";
  for (const char* name : {"plain", "pressure"}) {
    CompiledKernel k = compile_cuda(src, name, current_device().arch());
    k.ptxas = PtxasInfo{};
    complete_resources(k);
    EXPECT_GT(k.ptxas.registers, 0) << name;
    EXPECT_EQ(k.ptxas.spills(), std::string(name) == "pressure") << name << ": " << k.ptxas.spill_store_bytes;
  }
}

TEST_F(GpuRuntime, LargeDynamicSharedMemory) {
  const char* src = R"(
extern "C" __global__ void smem_echo(float* out, int n) {
  extern __shared__ float buf[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = i * 0.5f;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = buf[n - 1 - i];
}
)";
  LoadedKernel k(compile_cuda(src, "smem_echo", current_device().arch()));
  int n = 100 * 1024 / 4;  // 100 KiB: above the 48 KiB default, needs the opt-in
  DeviceBuffer out(n * sizeof(float));
  CUdeviceptr p = out.ptr();
  void* args[] = {&p, &n};
  k.launch(1, 1, 1, 256, 1, 1, n * sizeof(float), nullptr, args);
  sync();
  std::vector<float> host(n);
  copy_to_host(host.data(), p, out.bytes());
  for (int i = 0; i < n; ++i) ASSERT_EQ(host[i], (n - 1 - i) * 0.5f) << i;
  EXPECT_GE(k.max_active_blocks_per_sm(256, n * sizeof(float)), 1);
}

TEST_F(GpuRuntime, AllocatorReusesFreedBlocks) {
  CUdeviceptr first;
  {
    DeviceBuffer a(1000);
    first = a.ptr();
  }
  DeviceMemoryStats before = device_memory_stats();
  DeviceBuffer b(900);  // same 1024-byte size class
  EXPECT_EQ(b.ptr(), first);
  EXPECT_EQ(device_memory_stats().reuses, before.reuses + 1);
  EXPECT_EQ(device_memory_stats().device_allocs, before.device_allocs);

  { DeviceBuffer big(3u << 20); }
  EXPECT_GE(device_memory_stats().cached_bytes, size_t{4} << 20);
  release_cached_device_memory();
  EXPECT_EQ(device_memory_stats().cached_bytes, 0u);
}

TEST_F(GpuRuntime, OutOfMemoryNamesTheSize) {
  try {
    DeviceBuffer huge(size_t{1} << 42);  // 4 TiB
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("out of device memory allocating " + std::to_string(size_t{1} << 42) + " bytes (free "), std::string::npos)
        << m;
  }
  DeviceBuffer still_fine(1 << 20);  // the allocator keeps working afterwards
  EXPECT_NE(still_fine.ptr(), 0u);
}

TEST_F(GpuRuntime, BlasF32) {
  if (!blas_available()) GTEST_SKIP() << blas_unavailable_reason();
  Problem p{1, 67, 45, 33, false, false, contiguous_matmul_strides(67, 45, 33, false, false)};
  check_f32(p, false, false);
  p = Problem{1, 64, 128, 96, false, true, contiguous_matmul_strides(64, 128, 96, false, true)};
  check_f32(p, true, true);  // y = relu(x W^T + b), the linear-layer shape
}

TEST_F(GpuRuntime, BlasF32BatchedStrided) {
  if (!blas_available()) GTEST_SKIP() << blas_unavailable_reason();
  // Padded rows and gaps between batch entries; A transposed (stored k x m).
  int64_t batch = 3, m = 40, n = 24, k = 56;
  MatmulStrides s;
  s.lda = m + 8;
  s.ldb = n + 4;
  s.ldc = n + 8;
  s.batch_a = k * s.lda + 64;
  s.batch_b = k * s.ldb + 32;
  s.batch_c = m * s.ldc + 16;
  check_f32(Problem{batch, m, n, k, true, false, s}, false, false);
  // B broadcast over the batch (batch stride 0), with bias.
  MatmulStrides bcast = contiguous_matmul_strides(m, n, k, false, false);
  bcast.batch_b = 0;
  check_f32(Problem{batch, m, n, k, false, false, bcast}, true, false);
}

TEST_F(GpuRuntime, BlasBf16Batched) {
  if (!blas_available()) GTEST_SKIP() << blas_unavailable_reason();
  int64_t batch = 2, m = 96, n = 80, k = 64;
  MatmulStrides s = contiguous_matmul_strides(m, n, k, false, true);
  Problem p{batch, m, n, k, false, true, s};
  auto a = random_floats(p.a_elems(), 11), b = random_floats(p.b_elems(), 12);
  std::vector<uint16_t> ha(a.size()), hb(b.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = from_bf16(ha[i] = to_bf16(a[i]));  // reference sees bf16 inputs
  for (size_t i = 0; i < b.size(); ++i) b[i] = from_bf16(hb[i] = to_bf16(b[i]));
  DeviceBuffer da = upload(ha), db = upload(hb), dc(p.c_elems() * 2);
  blas_matmul(DType::BF16, da.ptr(), db.ptr(), dc.ptr(), batch, m, n, k, s, false, true, nullptr);
  std::vector<uint16_t> hc(p.c_elems());
  copy_to_host(hc.data(), dc.ptr(), dc.bytes());
  auto ref = reference(p, a, b, nullptr, false);
  for (size_t i = 0; i < hc.size(); ++i) {
    double got = from_bf16(hc[i]);
    // fp32 accumulation, one bf16 rounding of the output (8 significant bits).
    ASSERT_NEAR(got, ref[i], 1e-2 * std::abs(ref[i]) + 1e-3) << i;
  }
}
