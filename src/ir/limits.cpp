#include "ir/limits.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "solder/error.h"

namespace solder {

int64_t checked_mul(int64_t a, int64_t b, const std::string& what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw Error(what + " overflows int64 (" + std::to_string(a) + " * " + std::to_string(b) + ")");
  return r;
}

int64_t checked_add(int64_t a, int64_t b, const std::string& what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    throw Error(what + " overflows int64 (" + std::to_string(a) + " + " + std::to_string(b) + ")");
  return r;
}

int64_t checked_numel(const std::vector<int64_t>& shape, const std::string& what) {
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) throw Error(what + ": dim " + std::to_string(d) + " has negative size " + std::to_string(shape[d]));
    n = checked_mul(n, shape[d], what + ": the element count");
  }
  return n;
}

namespace {
// A limit in GB from the environment; `fallback` when unset. A malformed value is an error,
// not silently the default.
int64_t limit_from_env(const char* var, int64_t fallback) {
  const char* s = std::getenv(var);
  if (!s || !*s) return fallback;
  char* end = nullptr;
  double gb = std::strtod(s, &end);
  if (end == s || *end || !(gb > 0) || gb > 1e9)
    throw Error(std::string(var) + "='" + s + "' is not a positive number of GB");
  return static_cast<int64_t>(gb * 1e9);
}
}  // namespace

int64_t max_tensor_bytes() { return limit_from_env("SOLDER_MAX_TENSOR_GB", int64_t{64} * 1000 * 1000 * 1000); }

int64_t max_reference_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  int64_t ram = pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : int64_t{16} << 30;
  return limit_from_env("SOLDER_MAX_REFERENCE_GB", ram / 4 * 3);
}

std::string gigabytes(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g GB", bytes / 1e9);
  return buf;
}

void check_tensor_bytes(int64_t numel, int elem_bytes, const std::string& what) {
  int64_t bytes;
  const int64_t limit = max_tensor_bytes();
  if (__builtin_mul_overflow(numel, int64_t{elem_bytes}, &bytes) || bytes > limit)
    throw Error(what + " needs " + gigabytes(static_cast<double>(numel) * elem_bytes) + " (" + std::to_string(numel) +
                " elements), over the limit of " + gigabytes(static_cast<double>(limit)) +
                " for one tensor; set SOLDER_MAX_TENSOR_GB to raise it");
}

std::string read_bounded_file(const std::string& path, int64_t max_bytes, const std::string& what) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the type check below refuses it.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw Error(what + " '" + path + "' is not a regular file" + (S_ISDIR(st.st_mode) ? " (a directory)" : ""));
  if (st.st_size > max_bytes)
    throw Error(what + " '" + path + "' is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                std::to_string(max_bytes));
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("error while reading " + what + " '" + path + "': " + std::strerror(errno));
    if (n == 0) break;  // the file shrank while we read it: take what is there
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  return text;
}

}  // namespace solder
