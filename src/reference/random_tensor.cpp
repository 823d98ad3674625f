// Deterministic random tensors for tests and benchmarks: xoshiro256** seeded by splitmix64,
// so a seed gives the same values on every platform and compiler.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "solder/error.h"
#include "solder/host_tensor.h"

namespace solder {

namespace {
uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Whether an element's bits encode zero (either sign for floating types).
bool zero_bits(DType t, const std::byte* p) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, static_cast<size_t>(dtype_size(t)));  // little-endian: the low bytes
  if (!is_floating(t)) return bits == 0;
  return (bits & ~(uint64_t{1} << (8 * dtype_size(t) - 1))) == 0;
}

class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }
  uint64_t next() {
    uint64_t r = rotl(s_[1] * 5, 7) * 9;
    uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};
}  // namespace

HostTensor random_tensor(DType t, std::vector<int64_t> shape, uint64_t seed, double lo, double hi) {
  if (!(lo <= hi)) throw Error("random_tensor: empty range [" + std::to_string(lo) + ", " + std::to_string(hi) + ")");
  HostTensor r = HostTensor::empty(t, std::move(shape));
  Xoshiro256 rng(seed);
  const int64_t n = r.numel();
  bool any_nonzero = false;
  // Integers: uniform over the integers k with lo <= k < hi.
  double ilo = std::ceil(lo), ihi = std::ceil(hi) - 1;
  if (is_integral(t) && t != DType::Bool && ilo > ihi)
    throw Error("random_tensor: no integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + ")");
  // Chunks of 2^20 elements, each with its own generator (chunk 0 keeps the seed's stream),
  // filled on all cores: benchmark inputs of 2^27+ elements took seconds each on one thread.
  // The values depend on the seed and chunk only, never on the number of threads.
  constexpr int64_t kChunk = int64_t{1} << 20;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<char> nonzero(static_cast<size_t>(chunks), 0);
  const int64_t es = dtype_size(t);
  // Each element is encoded once and tested for zero on its bits (rounding to the dtype first
  // and encoding again took 70 ns an element), and a chunk records "nonzero" once: written per
  // element, neighbouring chunks' flags shared a cache line between threads.
  auto fill = [&](int64_t c) {
    Xoshiro256 rng(c == 0 ? seed : seed ^ (0x9e3779b97f4a7c15ull * static_cast<uint64_t>(c)));
    bool nz = false;
    for (int64_t i = c * kChunk, end = std::min(n, (c + 1) * kChunk); i < end; ++i) {
      double v;
      if (t == DType::Bool) v = static_cast<double>(rng.next() >> 63);
      else if (is_integral(t)) v = ilo + std::floor(rng.uniform() * (ihi - ilo + 1));
      else v = lo + rng.uniform() * (hi - lo);
      std::byte* p = r.data() + i * es;  // contiguous: no strided index per element
      store_element(t, v, p);
      nz = nz || !zero_bits(t, p);
    }
    nonzero[static_cast<size_t>(c)] = nz;
  };
  const int64_t workers = std::min<int64_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  if (workers <= 1) {
    for (int64_t c = 0; c < chunks; ++c) fill(c);
  } else {
    std::atomic<int64_t> next{0};
    std::vector<std::thread> pool;
    for (int64_t w = 0; w < workers; ++w)
      pool.emplace_back([&] {
        for (int64_t c; (c = next.fetch_add(1)) < chunks;) fill(c);
      });
    for (auto& th : pool) th.join();
  }
  for (char z : nonzero) any_nonzero = any_nonzero || z;
  // An all-zero tensor hides bugs (a kernel that writes nothing would pass): force one value.
  if (n > 0 && !any_nonzero) {
    for (double c : {hi, lo, 1.0})
      if (round_to(t, c) != 0) {
        r.set(0, c);
        break;
      }
  }
  return r;
}

}  // namespace solder
