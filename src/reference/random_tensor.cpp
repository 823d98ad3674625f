// Deterministic random tensors for tests and benchmarks: xoshiro256** seeded by splitmix64,
// so a seed gives the same values on every platform and compiler.
#include <cmath>

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
  for (int64_t i = 0; i < n; ++i) {
    double v;
    if (t == DType::Bool) v = static_cast<double>(rng.next() >> 63);
    else if (is_integral(t)) v = ilo + std::floor(rng.uniform() * (ihi - ilo + 1));
    else v = lo + rng.uniform() * (hi - lo);
    v = round_to(t, v);
    any_nonzero = any_nonzero || v != 0;
    r.set(i, v);
  }
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
