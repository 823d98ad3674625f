// Two-level kernel cache: a per-process map, backed by one validated file per key on disk.
#include "runtime/kernel_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "runtime/cache_entry.h"

namespace solder {

namespace fs = std::filesystem;
using KernelPtr = std::shared_ptr<const CompiledKernel>;

struct KernelCache::Impl {
  std::mutex mu;
  CacheStats stats;  // under mu
  // A shared_future per key: concurrent callers of one key wait for a single build, while
  // different keys compile in parallel (the lock is not held during a build).
  std::unordered_map<std::string, std::shared_future<KernelPtr>> entries;
  std::atomic<bool> disk{false};
  std::once_flag warned;

  void disable_disk(const std::string& dir, const std::string& why) {
    disk = false;
    std::call_once(warned, [&] {
      std::fprintf(stderr, "solder: kernel cache folder %s is unusable (%s); caching in memory only\n", dir.c_str(),
                   why.c_str());
    });
  }
};

namespace {

std::string default_dir() {
  if (const char* d = std::getenv("SOLDER_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "solder").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "solder").string();
  return "off";
}

constexpr off_t kMaxEntryBytes = off_t{256} << 20;

// An entry opens only as a regular file of bounded size. Anything else found under its name
// (a directory, a FIFO, a symlink to /dev/zero, a huge file) is Corrupt: rebuilt and replaced,
// never a blocking open, an endless read or an exception.
enum class EntryRead { Missing, Ok, Corrupt };
EntryRead read_entry(const std::string& path, std::vector<char>& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? EntryRead::Missing : EntryRead::Corrupt;
  struct stat st {};
  EntryRead r = EntryRead::Corrupt;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kMaxEntryBytes) {
    out.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < out.size()) {
      ssize_t n = ::read(fd, out.data() + got, out.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    if (got == out.size()) r = EntryRead::Ok;
  }
  ::close(fd);
  return r;
}

// Writes to a private temp name, then rename()s over the entry: readers in other processes see
// the old file or the new one, never a half-written one.
bool write_atomically(const std::string& path, const std::vector<char>& bytes, std::string& err) {
  static std::atomic<uint64_t> counter{0};
  std::string tmp = fmt::format("{}.tmp.{}.{}", path, static_cast<long>(getpid()), counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      err = "cannot create " + tmp;
      return false;
    }
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      err = "cannot write " + tmp;
      out.close();
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = "cannot rename " + tmp;
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

}  // namespace

KernelCache::KernelCache(std::string dir) : dir_(dir.empty() ? default_dir() : std::move(dir)), impl_(std::make_shared<Impl>()) {
  if (dir_ == "off") return;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_, ec)) {
    impl_->disable_disk(dir_, ec ? ec.message() : "not a directory");
    return;
  }
  impl_->disk = access(dir_.c_str(), W_OK) == 0;
  if (!impl_->disk) impl_->disable_disk(dir_, "not writable");
}

CacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->stats;
}

bool KernelCache::disk_enabled() const { return impl_->disk; }

std::string KernelCache::entry_path(const std::string& key) const {
  if (dir_ == "off") return "";
  return (fs::path(dir_) / fmt::format("{:016x}.cubin.entry", fnv1a64(key.data(), key.size()))).string();
}

std::shared_ptr<const CompiledKernel> KernelCache::get(const std::string& key,
                                                       const std::function<CompiledKernel()>& build) {
  std::promise<KernelPtr> promise;
  std::shared_future<KernelPtr> pending;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (auto it = impl_->entries.find(key); it != impl_->entries.end()) {
      ++impl_->stats.memory_hits;
      pending = it->second;
    } else {
      impl_->entries.emplace(key, promise.get_future().share());
    }
  }
  if (pending.valid()) return pending.get();  // built (or being built) by another call

  try {
    KernelPtr result;
    bool corrupt = false;
    std::string path = impl_->disk ? entry_path(key) : "";
    if (!path.empty()) {
      std::vector<char> bytes;
      EntryRead read = read_entry(path, bytes);
      if (read == EntryRead::Ok) {
        if (auto k = decode_cache_entry(bytes, key)) result = std::make_shared<const CompiledKernel>(std::move(*k));
        else corrupt = true;
      } else if (read == EntryRead::Corrupt) {
        corrupt = true;
        std::error_code ec;
        if (fs::is_directory(fs::symlink_status(path, ec))) fs::remove(path, ec);  // rename() cannot replace a directory
      }
    }
    bool from_disk = result != nullptr;
    if (!result) {
      result = std::make_shared<const CompiledKernel>(build());
      std::string err;
      if (!path.empty() && !write_atomically(path, encode_cache_entry(key, *result), err))
        impl_->disable_disk(dir_, err);
    }
    {
      std::lock_guard<std::mutex> lock(impl_->mu);
      ++(from_disk ? impl_->stats.disk_hits : impl_->stats.compiles);
      if (corrupt) ++impl_->stats.corrupt_rebuilt;
    }
    promise.set_value(result);
    return result;
  } catch (...) {
    // Forget the failed key so a later call retries, and hand the error to any waiters.
    {
      std::lock_guard<std::mutex> lock(impl_->mu);
      impl_->entries.erase(key);
    }
    promise.set_exception(std::current_exception());
    throw;
  }
}

KernelCache& KernelCache::global() {
  static KernelCache cache;
  return cache;
}

}  // namespace solder
