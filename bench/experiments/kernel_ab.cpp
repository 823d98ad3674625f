// A/B harness for generated row kernels, not part of the build: times kernel sources that
// `solder explain` dumped (SOLDER_DUMP_DIR), as they are or edited by hand, on the same inputs,
// timed like `solder bench` (L2 flushed, CUDA events, median) beside a copy of the same bytes,
// and checks every variant's output against the first one's. One device call can so compare
// several ideas before any goes into the generator.
//   nvcc -O2 -std=c++17 -o /tmp/kab bench/experiments/kernel_ab.cpp -lnvrtc -lcuda
//   /tmp/kab --rows 8192 --cols 4098 [--bf16] a.cu b.cu ...
// Reads from each source: the kernel name, the operands' element types (P<k> declarations), the
// plan line (operand access col/full, threads, rows_per_block, prefetch, prefetch=smem:BYTES,
// and dyn=BYTES of dynamic shared memory where a hand edit added some).
#include <cuda.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    CUresult r_ = (x);                                                         \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char* s_ = nullptr;                                                \
      cuGetErrorString(r_, &s_);                                               \
      std::fprintf(stderr, "%s: %s\n", #x, s_ ? s_ : "?");                     \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Operand {
  bool full = false, out = false;
  int size = 2;  // element bytes
  CUdeviceptr ptr = 0;
};

struct Variant {
  std::string file, name;
  std::vector<Operand> ops;
  int threads = 0, rpb = 1, dyn_smem = 0;
  bool prefetch = false;
  CUmodule mod{};
  CUfunction fn{};
};

static std::string slurp(const std::string& f) {
  std::ifstream in(f);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", f.c_str());
    std::exit(1);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

static int plan_int(const std::string& plan, const std::string& key, int dflt) {
  std::smatch m;
  if (std::regex_search(plan, m, std::regex(" " + key + "=([0-9]+)"))) return std::stoi(m[1]);
  return dflt;
}

static Variant parse(const std::string& file, const std::string& src) {
  Variant v;
  v.file = file;
  std::smatch m;
  if (!std::regex_search(src, m, std::regex(R"(__global__ void __launch_bounds__\([^)]*\) (\w+)\()")))
    std::fprintf(stderr, "%s: no kernel\n", file.c_str()), std::exit(1);
  v.name = m[1];
  std::regex_search(src, m, std::regex("// plan: ([^\n]*)"));
  const std::string plan = m[1];
  v.threads = plan_int(plan, "threads", 256);
  v.rpb = plan_int(plan, "rows_per_block", 1);
  v.prefetch = plan.find(" prefetch") != std::string::npos;
  std::smatch sm;
  // prefetch=smem:BYTES as the generator writes it; dyn=BYTES for a hand edit that adds some.
  if (std::regex_search(plan, sm, std::regex("prefetch=smem:([0-9]+)"))) v.dyn_smem = std::stoi(sm[1]);
  if (std::regex_search(plan, sm, std::regex(" dyn=([0-9]+)"))) v.dyn_smem = std::stoi(sm[1]);
  // ops=0:col,1:full,...,5:full,
  std::regex_search(plan, m, std::regex("ops=([^|]*)\\|"));
  std::string ops = m[1];
  std::regex one("([0-9]+):(\\w+),");
  for (auto it = std::sregex_iterator(ops.begin(), ops.end(), one); it != std::sregex_iterator(); ++it) {
    Operand o;
    o.full = (*it)[2] == "full";
    v.ops.push_back(o);
  }
  for (size_t k = 0; k < v.ops.size(); ++k) {
    std::regex decl("(const )?(\\w+)\\* __restrict__ P" + std::to_string(k) + " = ");
    if (!std::regex_search(src, m, decl)) std::fprintf(stderr, "%s: no P%zu\n", file.c_str(), k), std::exit(1);
    v.ops[k].out = !m[1].matched;
    const std::string t = m[2];
    v.ops[k].size = t == "float" ? 4 : t == "u16" ? 2 : t == "double" ? 8 : 1;
  }
  return v;
}

static std::vector<char> compile(const std::string& file, const std::string& src) {
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), file.c_str(), 0, nullptr, nullptr);
  const char* opts[] = {"--gpu-architecture=sm_90a", "-std=c++17", "--ptxas-options=-v"};
  nvrtcResult r = nvrtcCompileProgram(p, 3, opts);
  size_t n;
  nvrtcGetProgramLogSize(p, &n);
  std::string log(n, 0);
  nvrtcGetProgramLog(p, log.data());
  std::smatch m;
  if (std::regex_search(log, m, std::regex("Used [0-9]+ registers[^\n]*"))) std::printf("  %s: %s\n", file.c_str(), m.str().c_str());
  if (std::regex_search(log, m, std::regex("[0-9]+ bytes spill stores"))) std::printf("  %s: %s\n", file.c_str(), m.str().c_str());
  if (r != NVRTC_SUCCESS) std::fprintf(stderr, "%s:\n%s\n", file.c_str(), log.c_str()), std::exit(1);
  nvrtcGetCUBINSize(p, &n);
  std::vector<char> cubin(n);
  nvrtcGetCUBIN(p, cubin.data());
  nvrtcDestroyProgram(&p);
  return cubin;
}

int main(int argc, char** argv) {
  long long R = 8192, C = 4096;
  bool bf16 = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rows" && i + 1 < argc) R = std::atoll(argv[++i]);
    else if (a == "--cols" && i + 1 < argc) C = std::atoll(argv[++i]);
    else if (a == "--bf16") bf16 = true;
    else files.push_back(a);
  }
  if (files.empty()) return std::fprintf(stderr, "usage: kab --rows R --cols C [--bf16] kernel.cu...\n"), 2;
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  int sms = 0;
  CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));

  std::vector<Variant> vs;
  for (const auto& f : files) {
    const std::string src = slurp(f);
    Variant v = parse(f, src);
    std::vector<char> cubin = compile(f, src);
    CK(cuModuleLoadData(&v.mod, cubin.data()));
    CK(cuModuleGetFunction(&v.fn, v.mod, v.name.c_str()));
    if (v.dyn_smem > 48 * 1024)
      CK(cuFuncSetAttribute(v.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, v.dyn_smem));
    vs.push_back(std::move(v));
  }
  // Inputs shared by every variant (same operand list as the first), random in [-2, 2].
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  auto bits16 = [&](float f) -> unsigned short {
    if (bf16) {
      unsigned u;
      std::memcpy(&u, &f, 4);
      return (unsigned short)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
    }
    // f16 by hand: values here are normal and in range.
    unsigned u;
    std::memcpy(&u, &f, 4);
    const int e = (int)((u >> 23) & 0xff) - 127 + 15;
    if (e <= 0) return (unsigned short)((u >> 16) & 0x8000);
    return (unsigned short)(((u >> 16) & 0x8000) | (e << 10) | ((u >> 13) & 0x3ff));
  };
  const Variant& v0 = vs[0];
  std::vector<Operand> ops = v0.ops;
  double bytes = 0;
  for (auto& o : ops) {
    const size_t n = (o.full ? (size_t)R * C : (size_t)C), nb = n * o.size;
    bytes += (double)nb;
    CK(cuMemAlloc(&o.ptr, std::max<size_t>(nb, 16)));
    if (o.out) continue;
    std::vector<unsigned char> h(nb);
    for (size_t i = 0; i < n; ++i) {
      const float f = dist(rng);
      if (o.size == 4) std::memcpy(&h[i * 4], &f, 4);
      else if (o.size == 2) {
        unsigned short s = bits16(f);
        std::memcpy(&h[i * 2], &s, 2);
      } else h[i] = (unsigned char)(rng() & 0x77);
    }
    CK(cuMemcpyHtoD(o.ptr, h.data(), nb));
  }
  const size_t flush_n = 2ull * 64 * 1024 * 1024;
  CUdeviceptr flush;
  CK(cuMemAlloc(&flush, flush_n));
  CUevent e0, e1;
  CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
  CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
  auto timeit = [&](auto&& launch) {
    std::vector<float> t;
    for (int i = 0; i < 60; ++i) {
      CK(cuMemsetD8Async(flush, (unsigned char)i, flush_n, 0));
      CK(cuEventRecord(e0, 0));
      launch();
      CK(cuEventRecord(e1, 0));
      CK(cuEventSynchronize(e1));
      float ms;
      CK(cuEventElapsedTime(&ms, e0, e1));
      if (i >= 5) t.push_back(ms * 1000.f);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  // The roofline: a device copy of the same bytes (half read, half written).
  CUdeviceptr cs, cd;
  const size_t half = ((size_t)(bytes / 2) + 15) / 16 * 16;
  CK(cuMemAlloc(&cs, half));
  CK(cuMemAlloc(&cd, half));
  const float copy_us = timeit([&] { CK(cuMemcpyDtoDAsync(cd, cs, half, 0)); });
  std::printf("R=%lld C=%lld bytes=%.1f MB copy %.2f us (%.0f GB/s)\n", R, C, bytes / 1e6, copy_us, bytes / copy_us / 1e3);

  // Scratch (Params::scratch), zeroed once: kernels that use it leave it zeroed on exit.
  CUdeviceptr scratch;
  CK(cuMemAlloc(&scratch, 4096));
  CK(cuMemsetD8(scratch, 0, 4096));
  std::vector<unsigned char> ref;
  for (auto& v : vs) {
    if (v.ops.size() != ops.size()) std::fprintf(stderr, "%s: other operands than the first\n", v.file.c_str()), std::exit(1);
    // Params: R, C, dims[8], ptr[n], ld[n], stride[n][8], scratch (as the generator declares it).
    const int n = (int)ops.size();
    std::vector<long long> words;
    words.push_back(R);
    words.push_back(C);
    for (int d = 0; d < 8; ++d) words.push_back(d == 0 ? R : d == 1 ? C : 1);
    for (int k = 0; k < n; ++k) words.push_back((long long)ops[k].ptr);
    for (int k = 0; k < n; ++k) words.push_back(ops[k].full ? C : 0);
    for (int k = 0; k < n; ++k)
      for (int d = 0; d < 8; ++d) words.push_back(d == 0 ? (ops[k].full ? C : 0) : d == 1 ? 1 : 0);
    words.push_back((long long)scratch);
    int per_sm = 0;
    CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.fn, v.threads, v.dyn_smem));
    long long blocks = (R + v.rpb - 1) / v.rpb;
    if (v.prefetch) blocks = std::min<long long>(blocks, (long long)sms * std::max(1, per_sm));
    void* args[] = {words.data()};
    auto launch = [&] {
      CK(cuLaunchKernel(v.fn, (unsigned)blocks, 1, 1, v.threads, 1, 1, v.dyn_smem, 0, args, nullptr));
    };
    const int out = n - 1;
    CK(cuMemsetD8(ops[out].ptr, 0xff, (size_t)R * C * ops[out].size));
    launch();
    CK(cuCtxSynchronize());
    std::vector<unsigned char> got((size_t)R * C * ops[out].size);
    CK(cuMemcpyDtoH(got.data(), ops[out].ptr, got.size()));
    std::string check = "reference";
    if (ref.empty()) ref = got;
    else {
      size_t diff = 0;
      for (size_t i = 0; i < got.size(); i += ops[out].size)
        diff += std::memcmp(&got[i], &ref[i], ops[out].size) != 0;
      check = diff ? std::to_string(diff) + " elements differ from the first" : "same output as the first";
    }
    const float us = timeit(launch);
    std::printf("%-60s %8.2f us  %6.1f %% of copy  %d blocks x %d  (%s)\n", v.file.c_str(), us, 100.f * copy_us / us,
                (int)blocks, v.threads, check.c_str());
  }
  return 0;
}
