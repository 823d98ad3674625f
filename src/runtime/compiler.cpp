// CUDA C++ -> cubin through NVRTC, with ptxas's resource report parsed from the log.
#include "runtime/compiler.h"

#include <nvrtc.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/toolkit_paths.h"
#include "solder/error.h"

namespace solder {
namespace {

namespace fs = std::filesystem;

void check_nvrtc(nvrtcResult r, const char* what, const std::string& kernel) {
  if (r != NVRTC_SUCCESS)
    throw Error(std::string(what) + " failed for kernel " + kernel + ": " + nvrtcGetErrorString(r));
}

// Debugging aid: with $SOLDER_DUMP_DIR set, every compiled source, its log and its cubin (for
// cuobjdump -sass) land there (a recompile of the same kernel name, e.g. after spills, as
// name.1.cu, name.2.cu, ...).
void dump(const std::string& name, const std::string& source, const std::string& log,
          const std::vector<char>& cubin) {
  const char* dir = std::getenv("SOLDER_DUMP_DIR");
  if (!dir || !*dir) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string stem = name;
  for (int i = 1; fs::exists(fs::path(dir) / (stem + ".cu")); ++i) stem = name + "." + std::to_string(i);
  std::ofstream(fs::path(dir) / (stem + ".cu")) << source;
  std::ofstream(fs::path(dir) / (stem + ".log")) << log;
  if (!cubin.empty()) std::ofstream(fs::path(dir) / (stem + ".cubin"), std::ios::binary).write(cubin.data(), cubin.size());
}

// Owns an nvrtcProgram so every exit path destroys it.
struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

}  // namespace

bool kernel_line_info() {
  static const bool on = [] {
    const char* dir = std::getenv("SOLDER_DUMP_DIR");
    return dir && *dir;
  }();
  return on;
}

std::vector<std::string> nvrtc_options(const std::string& arch) {
  // sm_XX (not compute_XX) makes NVRTC run ptxas and produce a cubin; -Xptxas -v puts the
  // register/spill/smem report in the program log; -lineinfo keeps profilers' source view.
  std::vector<std::string> opts = {"--gpu-architecture=" + arch, "-std=c++17", "--ptxas-options=-v"};
  if (kernel_line_info()) opts.push_back("-lineinfo");
  if (!cuda_include_dir().empty()) opts.push_back("-I" + cuda_include_dir());
  // NVRTC 12.9+ keeps its own cache of compiled programs, and a program it takes from there
  // comes without ptxas's report: on the GPU machine the second process to compile a kernel
  // read -1 registers and no spills and ran a plan that spills (perf-notes, 2026-11-25).
  // Solder's kernel cache already keeps cubins with their reports.
  static const bool has_cache = [] {
    int major = 0, minor = 0;
    return nvrtcVersion(&major, &minor) == NVRTC_SUCCESS && (major > 12 || (major == 12 && minor >= 9));
  }();
  if (has_cache) opts.push_back("--no-cache");
  return opts;
}

CompiledKernel compile_cuda(const std::string& source, const std::string& kernel_name, const std::string& arch,
                            const std::vector<std::string>& extra_options) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> opts = nvrtc_options(arch);
  opts.insert(opts.end(), extra_options.begin(), extra_options.end());
  std::vector<const char*> argv;
  for (const std::string& o : opts) argv.push_back(o.c_str());

  Program prog;
  std::string file = kernel_name + ".cu";
  check_nvrtc(nvrtcCreateProgram(&prog.p, source.c_str(), file.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram",
              kernel_name);
  nvrtcResult compiled = nvrtcCompileProgram(prog.p, static_cast<int>(argv.size()), argv.data());

  size_t log_size = 0;
  check_nvrtc(nvrtcGetProgramLogSize(prog.p, &log_size), "nvrtcGetProgramLogSize", kernel_name);
  std::string log(log_size, '\0');
  if (log_size > 0) check_nvrtc(nvrtcGetProgramLog(prog.p, log.data()), "nvrtcGetProgramLog", kernel_name);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (compiled != NVRTC_SUCCESS) {
    dump(kernel_name, source, log, {});
    throw Error("NVRTC failed to compile kernel " + kernel_name + " for " + arch + ":\n" +
                (log.empty() ? std::string(nvrtcGetErrorString(compiled)) : log));
  }

  CompiledKernel k;
  k.name = kernel_name;
  k.arch = arch;
  size_t cubin_size = 0;
  check_nvrtc(nvrtcGetCUBINSize(prog.p, &cubin_size), "nvrtcGetCUBINSize", kernel_name);
  if (cubin_size == 0)
    throw Error("NVRTC produced no cubin for kernel " + kernel_name + " (arch " + arch +
                " must be a real sm_XX target, not compute_XX)");
  k.cubin.resize(cubin_size);
  check_nvrtc(nvrtcGetCUBIN(prog.p, k.cubin.data()), "nvrtcGetCUBIN", kernel_name);
  dump(kernel_name, source, log, k.cubin);
  k.ptxas = parse_ptxas_log(log, kernel_name);
  k.log = std::move(log);
  k.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return k;
}

CompiledKernel compile_cuda(const std::string& source, const std::string& kernel_name, const std::string& arch) {
  return compile_cuda(source, kernel_name, arch, {});
}

}  // namespace solder
