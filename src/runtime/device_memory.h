#pragma once
// Device memory through a caching allocator (blocks are kept per rounded size and reused),
// and the loaded-module/launch helpers. All calls require has_gpu().
#include <cuda.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "runtime/compiler.h"

namespace solder {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);  // from the caching allocator; throws on OOM naming the size
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  CUdeviceptr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
  size_t capacity_ = 0;
};

// Frees every cached block (e.g. before a benchmark that needs the memory).
void release_cached_device_memory();

// Sizes a request is served with: 512 B multiples below 1 MiB, 2 MiB multiples from there.
size_t round_device_alloc_size(size_t bytes);

struct DeviceMemoryStats {
  size_t in_use_bytes = 0;   // rounded capacity held by live DeviceBuffers
  size_t cached_bytes = 0;   // freed blocks kept for reuse
  int64_t device_allocs = 0; // cuMemAlloc calls that succeeded
  int64_t reuses = 0;        // requests served from the cache
};
DeviceMemoryStats device_memory_stats();

// Synchronous copies, checked (errors name the byte count).
void copy_to_device(CUdeviceptr dst, const void* src, size_t bytes);
void copy_to_host(void* dst, CUdeviceptr src, size_t bytes);

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
  static CUlaunchConfig config(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem,
                               CUstream stream, unsigned cluster, CUlaunchAttribute& attr);
  CUmodule mod_ = nullptr;
  CUfunction fn_ = nullptr;
  std::string name_;
  unsigned smem_limit_ = 48 * 1024;
};

}  // namespace solder
