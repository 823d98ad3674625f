#pragma once
// Compiled kernels by symbolic key: in memory for the process and on disk across processes.
// The key is built by the executor from the fusion hash, dtypes, ranks, contiguity/broadcast
// pattern, alignment class and the scheduler's parameters; never from raw sizes.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "runtime/compiler.h"

namespace solder {

struct CacheStats {
  int64_t memory_hits = 0;
  int64_t disk_hits = 0;
  int64_t compiles = 0;        // misses in both caches
  int64_t corrupt_rebuilt = 0; // disk entries that failed validation and were recompiled
};

// A handle: copies share both caches and the statistics (a compile the driver stopped waiting
// for finishes through its own copy).
class KernelCache {
 public:
  // dir: disk cache folder; empty = default ($SOLDER_CACHE_DIR, else $XDG_CACHE_HOME/solder,
  // else ~/.cache/solder). "off" disables the disk cache.
  explicit KernelCache(std::string dir = "");
  // Returns the kernel for `key`, compiling with `build` on a miss. Disk entries carry a magic,
  // the full key and a checksum; anything that fails validation is rebuilt and overwritten.
  std::shared_ptr<const CompiledKernel> get(const std::string& key,
                                            const std::function<CompiledKernel()>& build);
  CacheStats stats() const;
  const std::string& dir() const { return dir_; }
  // Where `key`'s disk entry lives (<dir>/<16 hex digits of a 64-bit hash>.cubin.entry), or ""
  // when the disk cache is off. Exposed for tests and tooling.
  std::string entry_path(const std::string& key) const;
  bool disk_enabled() const;
  static KernelCache& global();

 private:
  std::string dir_;
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace solder
