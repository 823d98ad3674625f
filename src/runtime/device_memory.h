#pragma once
// Device memory through a caching allocator (blocks are kept per rounded size and reused), and
// checked copies. All calls require has_gpu().
#include <cuda.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>


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

}  // namespace solder
