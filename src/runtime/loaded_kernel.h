#pragma once
// Compiled kernels loaded into the current context and launched. All calls require has_gpu().
#include <cuda.h>

#include <string>

#include "runtime/compiler.h"

namespace solder {

// Fills what the compile log did not report (registers < 0: a log without ptxas's -v report, as
// NVRTC 12.9+ gave for programs from its own cache, now turned off; see nvrtc_options) from the
// loaded function: its registers, and its local memory per thread as spill stores (a generated
// kernel keeps nothing else there), so a kernel that spills is still never chosen.
void complete_resources(CompiledKernel& k);

// A compiled kernel loaded into the current context.
class LoadedKernel {
 public:
  explicit LoadedKernel(const CompiledKernel& k);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;
  CUfunction function() const { return fn_; }
  const std::string& name() const { return name_; }
  // Raises the dynamic shared-memory limit when smem > 48 KiB (once per value). `cluster` > 1:
  // consecutive blocks along x form clusters of that many (sm_90; gx a multiple of it).
  void launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem,
              CUstream stream, void** args, unsigned cluster = 1);
  int max_active_blocks_per_sm(int block_threads, size_t smem) const;
  // Clusters of `cluster` blocks of this kernel the device runs at once.
  int max_active_clusters(unsigned cluster, int block_threads, unsigned smem);

 private:
  void raise_smem_limit(unsigned smem);
  // Clusters of more than 8 blocks (the portable limit) need the function's opt-in (once).
  void allow_cluster(unsigned cluster);
  static CUlaunchConfig config(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem,
                               CUstream stream, unsigned cluster, CUlaunchAttribute& attr);
  CUmodule mod_ = nullptr;
  CUfunction fn_ = nullptr;
  std::string name_;
  // The dynamic shared memory a launch may ask for without raising the limit: 48 KiB less the
  // kernel's static shared memory (a 48 KiB launch of a kernel with static partials fails).
  unsigned smem_limit_ = 0;
  bool nonportable_ = false;
};

}  // namespace solder
