// Caching device allocator and loaded-kernel helpers.
//
// Reuse is not stream-ordered: a freed block may be handed out again at once. That is safe while
// all work runs on one stream (or callers synchronize before freeing buffers other streams use).
#include "runtime/device_memory.h"

#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "runtime/driver.h"
#include "solder/error.h"

namespace solder {
namespace {

constexpr size_t kSmallQuantum = 512;
constexpr size_t kLargeThreshold = size_t{1} << 20;
constexpr size_t kLargeQuantum = size_t{2} << 20;

const DriverApi& need_driver(const char* what) {
  const DriverApi* d = driver();
  if (!d) throw Error(std::string(what) + " needs a GPU: " + driver_unavailable_reason());
  return *d;
}

class CachingAllocator {
 public:
  CUdeviceptr allocate(size_t capacity, size_t requested) {
    const DriverApi& d = need_driver("device memory");
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(capacity);
      if (it != free_.end() && !it->second.empty()) {
        CUdeviceptr p = it->second.back();
        it->second.pop_back();
        stats_.cached_bytes -= capacity;
        stats_.in_use_bytes += capacity;
        ++stats_.reuses;
        return p;
      }
    }
    CUdeviceptr p = 0;
    CUresult r = d.cuMemAlloc(&p, capacity);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      // Cached blocks of other sizes may be what is missing: give them back and try once more.
      release();
      r = d.cuMemAlloc(&p, capacity);
    }
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      size_t free_b = 0, total_b = 0;
      d.cuMemGetInfo(&free_b, &total_b);
      throw Error(fmt::format("out of device memory allocating {} bytes (free {} of {})", requested, free_b, total_b));
    }
    check_cuda(r, fmt::format("cuMemAlloc of {} bytes", capacity));
    std::lock_guard<std::mutex> lock(mu_);
    stats_.in_use_bytes += capacity;
    ++stats_.device_allocs;
    return p;
  }

  void deallocate(CUdeviceptr p, size_t capacity) {
    std::lock_guard<std::mutex> lock(mu_);
    free_[capacity].push_back(p);
    stats_.in_use_bytes -= capacity;
    stats_.cached_bytes += capacity;
  }

  void release() {
    std::unordered_map<size_t, std::vector<CUdeviceptr>> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      blocks.swap(free_);
      stats_.cached_bytes = 0;
    }
    const DriverApi* d = driver();
    if (!d) return;
    for (auto& [size, ptrs] : blocks)
      for (CUdeviceptr p : ptrs) d->cuMemFree(p);  // best effort: nothing useful to do on failure
  }

  DeviceMemoryStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

 private:
  std::mutex mu_;
  std::unordered_map<size_t, std::vector<CUdeviceptr>> free_;
  DeviceMemoryStats stats_;
};

// Never destroyed: buffers in other static objects may be freed after it would have been, and
// the driver releases all memory at process exit anyway.
CachingAllocator& allocator() {
  static auto* a = new CachingAllocator();
  return *a;
}

}  // namespace

size_t round_device_alloc_size(size_t bytes) {
  if (bytes == 0) return 0;
  size_t q = bytes < kLargeThreshold ? kSmallQuantum : kLargeQuantum;
  return (bytes + q - 1) / q * q;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes), capacity_(round_device_alloc_size(bytes)) {
  if (capacity_ > 0) ptr_ = allocator().allocate(capacity_, bytes_);
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) allocator().deallocate(ptr_, capacity_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_), capacity_(o.capacity_) {
  o.ptr_ = 0;
  o.bytes_ = o.capacity_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (ptr_) allocator().deallocate(ptr_, capacity_);
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    capacity_ = o.capacity_;
    o.ptr_ = 0;
    o.bytes_ = o.capacity_ = 0;
  }
  return *this;
}

void release_cached_device_memory() { allocator().release(); }

DeviceMemoryStats device_memory_stats() { return allocator().stats(); }

void copy_to_device(CUdeviceptr dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  check_cuda(need_driver("copy_to_device").cuMemcpyHtoD(dst, src, bytes), fmt::format("copy of {} bytes to device", bytes));
}

void copy_to_host(void* dst, CUdeviceptr src, size_t bytes) {
  if (bytes == 0) return;
  check_cuda(need_driver("copy_to_host").cuMemcpyDtoH(dst, src, bytes), fmt::format("copy of {} bytes to host", bytes));
}

LoadedKernel::LoadedKernel(const CompiledKernel& k) : name_(k.name) {
  const DriverApi& d = need_driver("loading a kernel");
  check_cuda(d.cuModuleLoadData(&mod_, k.cubin.data()), "cuModuleLoadData", name_);
  CUresult r = d.cuModuleGetFunction(&fn_, mod_, name_.c_str());
  if (r != CUDA_SUCCESS) {
    d.cuModuleUnload(mod_);
    mod_ = nullptr;
    check_cuda(r, "cuModuleGetFunction", name_);
  }
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

int LoadedKernel::max_active_clusters(unsigned cluster, int block_threads, unsigned smem) {
  raise_smem_limit(smem);
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
