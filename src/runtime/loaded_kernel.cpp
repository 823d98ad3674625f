#include "runtime/loaded_kernel.h"

#include <mutex>
#include <unordered_map>
#include <fmt/format.h>
#include "runtime/driver.h"
#include "solder/error.h"

namespace solder {

LoadedKernel::LoadedKernel(const CompiledKernel& k) : name_(k.name) {
  const DriverApi& d = need_driver("loading a kernel");
  check_cuda(d.cuModuleLoadData(&mod_, k.cubin.data()), "cuModuleLoadData", name_);
  CUresult r = d.cuModuleGetFunction(&fn_, mod_, name_.c_str());
  if (r != CUDA_SUCCESS) {
    d.cuModuleUnload(mod_);
    mod_ = nullptr;
    check_cuda(r, "cuModuleGetFunction", name_);
  }
  int limit = 0;
  check_cuda(d.cuFuncGetAttribute(&limit, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fn_),
             "dynamic shared memory limit query", name_);
  smem_limit_ = static_cast<unsigned>(limit);
}

void complete_resources(CompiledKernel& k) {
  if (k.ptxas.registers >= 0) return;
  const LoadedKernel loaded(k);
  const DriverApi& d = need_driver("querying kernel resources");
  auto attribute = [&](CUfunction_attribute a, const char* what) {
    int v = 0;
    check_cuda(d.cuFuncGetAttribute(&v, a, loaded.function()), what, k.name);
    return v;
  };
  k.ptxas.registers = attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, "register count query");
  k.ptxas.spill_store_bytes = attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "local memory query");
  k.ptxas.smem_bytes = attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "shared memory query");
}

LoadedKernel::~LoadedKernel() {
  if (const DriverApi* d = driver(); d && mod_) d->cuModuleUnload(mod_);
}

void LoadedKernel::launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned smem, CUstream stream, void** args, unsigned cluster) {
  const DriverApi& d = need_driver("launching a kernel");
  raise_smem_limit(smem);
  CUresult r;
  if (cluster <= 1) {
    r = d.cuLaunchKernel(fn_, gx, gy, gz, bx, by, bz, smem, stream, args, nullptr);
  } else {
    allow_cluster(cluster);
    CUlaunchAttribute attr{};
    const CUlaunchConfig cfg = config(gx, gy, gz, bx, by, bz, smem, stream, cluster, attr);
    r = d.cuLaunchKernelEx(&cfg, fn_, args, nullptr);
  }
  // The message only on failure: formatting it took host time on every launch.
  if (r != CUDA_SUCCESS)
    check_cuda(r,
               fmt::format("launch of grid ({}, {}, {}) x block ({}, {}, {}) with {} bytes smem{}", gx, gy, gz, bx, by,
                           bz, smem, cluster > 1 ? fmt::format(" in clusters of {}", cluster) : ""),
               name_);
}

void LoadedKernel::raise_smem_limit(unsigned smem) {
  if (smem <= smem_limit_) return;
  // Above 48 KiB of dynamic shared memory a kernel must opt in explicitly.
  check_cuda(need_driver("raising shared memory").cuFuncSetAttribute(fn_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                                      static_cast<int>(smem)),
             fmt::format("raising dynamic shared memory to {} bytes", smem), name_);
  smem_limit_ = smem;
}

CUlaunchConfig LoadedKernel::config(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                    unsigned smem, CUstream stream, unsigned cluster, CUlaunchAttribute& attr) {
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = cluster;
  attr.value.clusterDim.y = 1;
  attr.value.clusterDim.z = 1;
  CUlaunchConfig cfg{};
  cfg.gridDimX = gx;
  cfg.gridDimY = gy;
  cfg.gridDimZ = gz;
  cfg.blockDimX = bx;
  cfg.blockDimY = by;
  cfg.blockDimZ = bz;
  cfg.sharedMemBytes = smem;
  cfg.hStream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cfg;
}

void LoadedKernel::allow_cluster(unsigned cluster) {
  if (cluster <= 8 || nonportable_) return;
  check_cuda(need_driver("allowing a non-portable cluster size")
                 .cuFuncSetAttribute(fn_, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
             fmt::format("allowing clusters of {} blocks (non-portable)", cluster), name_);
  nonportable_ = true;
}

int LoadedKernel::max_active_clusters(unsigned cluster, int block_threads, unsigned smem) {
  raise_smem_limit(smem);
  allow_cluster(cluster);
  CUlaunchAttribute attr{};
  const CUlaunchConfig cfg = config(cluster, 1, 1, static_cast<unsigned>(block_threads), 1, 1, smem, nullptr, cluster, attr);
  int clusters = 0;
  check_cuda(need_driver("cluster occupancy query").cuOccupancyMaxActiveClusters(&clusters, fn_, &cfg),
             fmt::format("occupancy query for clusters of {}", cluster), name_);
  return clusters;
}

int LoadedKernel::max_active_blocks_per_sm(int block_threads, size_t smem) const {
  const DriverApi& d = need_driver("occupancy query");
  int blocks = 0;
  check_cuda(d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn_, block_threads, smem), "occupancy query",
             name_);
  return blocks;
}

}  // namespace solder
