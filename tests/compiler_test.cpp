// NVRTC compilation for sm_90a (runs without a GPU) and the ptxas report parser.
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/compiler.h"
#include "solder/error.h"

using namespace solder;

namespace {

const char* kVectorAdd = R"(
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

// 96 live accumulators under a 32-register budget (__launch_bounds__(1024, 2)) must spill.
const char* kSpiller = R"(
extern "C" __global__ void __launch_bounds__(1024, 2) spiller(float* out, const float* in, int n) {
  float acc[96];
#pragma unroll
  for (int j = 0; j < 96; ++j) acc[j] = in[threadIdx.x + j * n];
#pragma unroll
  for (int it = 0; it < 4; ++it) {
#pragma unroll
    for (int j = 0; j < 96; ++j) acc[j] = acc[j] * acc[(j + it + 1) % 96] + 1.0f;
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 96; ++j) s += acc[j] * (j + 1);
  out[threadIdx.x] = s;
}
)";

}  // namespace

TEST(Compiler, VectorAddForSm90a) {
  CompiledKernel k = compile_cuda(kVectorAdd, "vadd", "sm_90a");
  EXPECT_EQ(k.name, "vadd");
  EXPECT_EQ(k.arch, "sm_90a");
  ASSERT_GT(k.cubin.size(), 4u);
  EXPECT_EQ(std::string(k.cubin.data(), 4), "\x7f" "ELF");  // a cubin, not PTX
  EXPECT_GT(k.ptxas.registers, 0) << k.log;
  EXPECT_FALSE(k.ptxas.spills()) << k.log;
  EXPECT_EQ(k.ptxas.smem_bytes, 0);
  EXPECT_NE(k.log.find("Compiling entry function 'vadd' for 'sm_90a'"), std::string::npos) << k.log;
  EXPECT_GT(k.compile_ms, 0.0);
}

// wgmma exists only on the arch-specific target: proof that "sm_90a" reaches ptxas as sm_90a.
TEST(Compiler, ArchSpecificInstructionsNeedSm90a) {
  const char* src = R"(
extern "C" __global__ void fence(float* a) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  a[threadIdx.x] += 1.0f;
}
)";
  EXPECT_FALSE(compile_cuda(src, "fence", "sm_90a").cubin.empty());
  EXPECT_THROW(compile_cuda(src, "fence", "sm_90"), Error);
}

TEST(Compiler, OptionsNameArchAndVerbosePtxas) {
  std::vector<std::string> o = nvrtc_options("sm_90a");
  ASSERT_FALSE(o.empty());
  EXPECT_EQ(o[0], "--gpu-architecture=sm_90a");
  EXPECT_NE(std::find(o.begin(), o.end(), "--ptxas-options=-v"), o.end());
  // Line info only for the debugging runs that dump kernels (profilers' source view).
  const char* dump = std::getenv("SOLDER_DUMP_DIR");
  EXPECT_EQ(std::find(o.begin(), o.end(), "-lineinfo") != o.end(), dump != nullptr && *dump != 0);
  EXPECT_EQ(kernel_line_info(), dump != nullptr && *dump != 0);
  // NVRTC's own cache (12.9+) drops the ptxas report of the programs it serves: off.
  int major = 0, minor = 0;
  ASSERT_EQ(nvrtcVersion(&major, &minor), NVRTC_SUCCESS);
  EXPECT_EQ(std::find(o.begin(), o.end(), "--no-cache") != o.end(), major > 12 || (major == 12 && minor >= 9));
}

TEST(Compiler, ToolkitHeadersAreReachable) {
  const char* src = R"(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
extern "C" __global__ void halves(const __half* a, __nv_bfloat16* b, __nv_fp8_e4m3* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float x = __half2float(a[i]); b[i] = __float2bfloat16(x); c[i] = __nv_fp8_e4m3(x); }
}
)";
  CompiledKernel k = compile_cuda(src, "halves", "sm_90a");
  EXPECT_FALSE(k.cubin.empty());
}

TEST(Compiler, ForcedSpillsAreReported) {
  CompiledKernel k = compile_cuda(kSpiller, "spiller", "sm_90a");
  EXPECT_LE(k.ptxas.registers, 32) << k.log;
  EXPECT_TRUE(k.ptxas.spills()) << k.log;
  EXPECT_GT(k.ptxas.spill_store_bytes, 0);
  EXPECT_GT(k.ptxas.spill_load_bytes, 0);
  EXPECT_GT(k.ptxas.stack_bytes, 0);
}

TEST(Compiler, StaticSharedMemoryAndExtraOptions) {
  const char* src = R"(
extern "C" __global__ void tile(float* out) {
  __shared__ float buf[TILE];
  buf[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = buf[(threadIdx.x + 1) % TILE];
}
)";
  CompiledKernel k = compile_cuda(src, "tile", "sm_90a", {"-DTILE=1024"});
  EXPECT_EQ(k.ptxas.smem_bytes, 4096) << k.log;
}

TEST(Compiler, SyntaxErrorNamesKernelAndArch) {
  try {
    compile_cuda("extern \"C\" __global__ void broken(float* x) { x[0] = ; }", "broken", "sm_90a");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("NVRTC failed to compile kernel broken for sm_90a"), std::string::npos) << m;
    EXPECT_NE(m.find("expected an expression"), std::string::npos) << m;  // the log is included
  }
}

TEST(Compiler, DumpDirReceivesSourceAndLog) {
  auto dir = std::filesystem::temp_directory_path() / ("solder_dump_" + std::to_string(::getpid()));
  ::setenv("SOLDER_DUMP_DIR", dir.c_str(), 1);
  compile_cuda(kVectorAdd, "vadd_dumped", "sm_90a");
  ::unsetenv("SOLDER_DUMP_DIR");
  EXPECT_TRUE(std::filesystem::exists(dir / "vadd_dumped.cu"));
  std::ifstream log(dir / "vadd_dumped.log");
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("Used"), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}

// Captured from NVRTC 13.0 for sm_90a: two entries, the second with spills and smem.
TEST(PtxasLog, PicksTheNamedEntry) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'first' for 'sm_90a'\n"
      "ptxas info    : Function properties for first\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 12 registers, used 0 barriers\n"
      "ptxas info    : Compiling entry function 'second' for 'sm_90a'\n"
      "ptxas info    : Function properties for second\n"
      "ptxas         .     712 bytes stack frame, 1452 bytes spill stores, 1460 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 1 barriers, 712 bytes cumulative stack size, 4096 bytes smem\n"
      "ptxas info    : Compile time = 90.489 ms\n";
  PtxasInfo first = parse_ptxas_log(log);  // no name: the first entry
  EXPECT_EQ(first.registers, 12);
  EXPECT_FALSE(first.spills());
  PtxasInfo second = parse_ptxas_log(log, "second");
  EXPECT_EQ(second.registers, 32);
  EXPECT_EQ(second.stack_bytes, 712);
  EXPECT_EQ(second.spill_store_bytes, 1452);
  EXPECT_EQ(second.spill_load_bytes, 1460);
  EXPECT_EQ(second.smem_bytes, 4096);
}

TEST(PtxasLog, OlderFormatAndHeaderlessFragments) {
  // Pre-12.x ptxas wrote smem before cmem on the "Used" line.
  PtxasInfo old = parse_ptxas_log(
      "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
      "ptxas info    : Function properties for k\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 255 registers, 49152 bytes smem, 380 bytes cmem[0]\n");
  EXPECT_EQ(old.registers, 255);
  EXPECT_EQ(old.smem_bytes, 49152);
  EXPECT_EQ(old.spill_store_bytes, 4);
  PtxasInfo frag = parse_ptxas_log("ptxas info    : Used 40 registers, used 1 barriers\n");
  EXPECT_EQ(frag.registers, 40);
  EXPECT_EQ(parse_ptxas_log("").registers, -1);
}
