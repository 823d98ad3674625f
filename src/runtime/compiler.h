#pragma once
// NVRTC: CUDA C++ -> cubin for a given arch, with ptxas's resource report. Runs without a GPU.
#include <string>
#include <vector>

namespace solder {

struct PtxasInfo {
  int registers = -1;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_bytes = 0;
  int smem_bytes = 0;
  bool spills() const { return spill_store_bytes > 0 || spill_load_bytes > 0; }
};

struct CompiledKernel {
  std::string name;  // the __global__ function's (extern "C") name
  std::string arch;  // e.g. "sm_90a"
  std::vector<char> cubin;
  PtxasInfo ptxas;
  std::string log;  // NVRTC + ptxas log
  double compile_ms = 0;
};

// Compiles `source` (which must define extern "C" __global__ `kernel_name`) to a cubin.
// Throws solder::Error with the NVRTC log (and the kernel name) on a compile error.
CompiledKernel compile_cuda(const std::string& source, const std::string& kernel_name, const std::string& arch);
// Same, with extra NVRTC options appended (e.g. "--maxrregcount=64", "-DTILE=128").
CompiledKernel compile_cuda(const std::string& source, const std::string& kernel_name, const std::string& arch,
                            const std::vector<std::string>& extra_options);

// The NVRTC options compile_cuda uses for `arch` (before extra_options); exposed for tests/logs.
std::vector<std::string> nvrtc_options(const std::string& arch);

// Whether kernels carry line info for profilers' source view: where $SOLDER_DUMP_DIR is set (the
// debugging runs). Without it a large kernel compiled a fifth faster and its cubin was a third
// the size. Kernel cache keys name it, so a cached kernel has it exactly when asked for.
bool kernel_line_info();

// Reads ptxas's -v report. With `kernel` set, only that entry function's lines count; otherwise
// the first entry function in the log (or every line, for a log without entry headers).
PtxasInfo parse_ptxas_log(const std::string& log);
PtxasInfo parse_ptxas_log(const std::string& log, const std::string& kernel);

}  // namespace solder
