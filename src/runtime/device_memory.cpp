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

}  // namespace solder
