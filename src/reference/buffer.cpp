#include "reference/buffer.h"

#include <cmath>
#include <list>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "reference/parallel.h"
#include "solder/error.h"
#include "solder/host_tensor.h"

namespace solder::ref {

namespace {
constexpr size_t kSmall = size_t{1} << 20, kMaxCached = size_t{2} << 30;
size_t size_class(size_t bytes) { return (bytes + kSmall - 1) / kSmall * kSmall; }
// Freed blocks, the latest first; the oldest go back to the system when over kMaxCached (the
// sizes a test asks for change from case to case).
struct BlockCache {
  std::mutex mu;
  std::list<std::pair<size_t, void*>> free;  // (size class, block)
  size_t cached = 0;
  ~BlockCache() {
    for (auto& [bytes, p] : free) ::operator delete(p);
  }
};
BlockCache& cache() {
  static BlockCache c;
  return c;
}
}  // namespace

void* take_block(size_t bytes) {
  if (bytes < kSmall) return ::operator new(bytes);
  const size_t cls = size_class(bytes);
  {
    BlockCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    for (auto it = c.free.begin(); it != c.free.end(); ++it)
      if (it->first == cls) {
        void* p = it->second;
        c.free.erase(it);
        c.cached -= cls;
        return p;
      }
  }
  return ::operator new(cls);
}

void give_block(void* p, size_t bytes) {
  if (bytes < kSmall) return ::operator delete(p);
  const size_t cls = size_class(bytes);
  if (cls > kMaxCached) return ::operator delete(p);
  std::vector<void*> evicted;
  {
    BlockCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    c.free.emplace_front(cls, p);
    c.cached += cls;
    while (c.cached > kMaxCached) {
      evicted.push_back(c.free.back().second);
      c.cached -= c.free.back().first;
      c.free.pop_back();
    }
  }
  for (void* q : evicted) ::operator delete(q);
}

double value_at(const Buf& b, int64_t i) {
  return holds_int(b.dtype) ? static_cast<double>(bits_int(b.data[i])) : b.data[i];
}

int64_t trunc_int(double v) {
  if (std::isnan(v)) return 0;
  if (v <= -0x1p63) return INT64_MIN;
  if (v >= 0x1p63) return INT64_MAX;
  return static_cast<int64_t>(v);
}

int64_t int_at(const Buf& b, int64_t i) { return holds_int(b.dtype) ? bits_int(b.data[i]) : trunc_int(b.data[i]); }

int64_t numel(const Sizes& shape) {
  int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

Sizes row_major_strides(const Sizes& shape) {
  Sizes st(shape.size());
  int64_t n = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    st[d] = n;
    if (__builtin_mul_overflow(n, shape[d], &n)) n = 0;  // only past a zero dim: no element
  }
  return st;
}

std::string sizes_str(const Sizes& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

Doubles broadcast_to(const Buf& in, const Sizes& shape) {
  if (in.shape == shape) return in.data;
  if (in.shape.size() > shape.size())
    throw Error("reference: cannot broadcast " + sizes_str(in.shape) + " to " + sizes_str(shape));
  // Strides of `in` seen through the output's index space: 0 where a dim is stretched or absent.
  size_t off = shape.size() - in.shape.size();
  Sizes src = row_major_strides(in.shape), st(shape.size(), 0);
  for (size_t d = 0; d < in.shape.size(); ++d) {
    if (in.shape[d] == shape[d + off]) st[d + off] = src[d];
    else if (in.shape[d] != 1)
      throw Error("reference: cannot broadcast " + sizes_str(in.shape) + " to " + sizes_str(shape));
  }
  const int64_t n = numel(shape);
  Doubles out(static_cast<size_t>(n));
  parallel_for(n, [&](int64_t begin, int64_t end) {
    if (begin == end) return;
    // The chunk's first output index, then an odometer that moves the source position along.
    Sizes idx(shape.size(), 0);
    int64_t pos = 0;  // source index of the current output element
    int64_t rest = begin;
    for (size_t d = shape.size(); d-- > 0;) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
      pos += idx[d] * st[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      out[i] = in.data[pos];
      for (size_t d = shape.size(); d-- > 0;) {
        pos += st[d];
        if (++idx[d] < shape[d]) break;
        pos -= st[d] * idx[d];
        idx[d] = 0;
      }
    }
  });
  return out;
}

const double* broadcast_view(const Buf& in, const Sizes& shape, Doubles& scratch) {
  if (in.shape == shape) return in.data.data();
  scratch = broadcast_to(in, shape);
  return scratch.data();
}

void round_all(Doubles& v, DType t) {
  if (t == DType::F64) return;
  parallel_for(static_cast<int64_t>(v.size()), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) v[i] = round_to(t, v[i]);
  });
}

}  // namespace solder::ref
