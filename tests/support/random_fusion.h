#pragma once
// A seeded generator of random, valid fusions for property tests (text round trip, later the
// reference and the GPU). It proposes random builder calls over the values made so far and
// keeps those the builder accepts: the builder's validation is the filter, so the generator
// never has to restate the typing rules. Covers unary/binary/compare/where/clamp/cast, every
// reduction incl. var_mean, views, cat, constants, with odd, size-1 and symbolic dims.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "solder/error.h"
#include "solder/fusion.h"

namespace solder::test_support {

class RandomFusion {
 public:
  explicit RandomFusion(uint64_t seed) : rng_(seed) {}

  // Inputs first (so value ids survive a print/parse round trip), then up to `steps` nodes.
  Fusion make(int steps = 12) {
    Fusion f("random_" + std::to_string(pick(0, 1 << 20)));
    Shape base = random_shape();
    int n_inputs = pick(1, 3);
    for (int i = 0; i < n_inputs; ++i) {
      DType t = random_dtype(false);  // one random draw per statement: argument order is unspecified
      f.input("in" + std::to_string(i), t, variant_of(base));
    }
    for (int done = 0, tries = 0; done < steps && tries < steps * 20; ++tries) {
      try {
        step(f);
        ++done;
      } catch (const Error&) {
        // The builder refused this proposal; that is the filter working.
      }
    }
    int last = static_cast<int>(f.values().size()) - 1;
    f.output(last);
    for (int k = pick(0, 2); k > 0; --k) f.output(pick(0, last));
    return f;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }
  template <class T>
  const T& one_of(const std::vector<T>& xs) { return xs[pick(0, static_cast<int>(xs.size()) - 1)]; }

  DType random_dtype(bool allow_fp8) {
    std::vector<DType> ts{DType::F32, DType::F16, DType::BF16, DType::I32, DType::F64, DType::Bool, DType::I64};
    if (allow_fp8) ts.insert(ts.end(), {DType::F8E4M3, DType::F8E5M2});
    return one_of(ts);
  }

  Dim random_dim() { return one_of(std::vector<Dim>{1, 1, 3, 7, 5, 2, 13, Dim::sym("B"), Dim::sym("H")}); }

  Shape random_shape() {
    Shape s;
    for (int r = pick(0, 4); r > 0; --r) s.push_back(random_dim());
    return s;
  }

  // A shape that broadcasts with `base`: a suffix of it with some dims set to 1.
  Shape variant_of(const Shape& base) {
    Shape s(base.begin() + pick(0, static_cast<int>(base.size())), base.end());
    for (auto& d : s)
      if (coin(0.25)) d = Dim(1);
    return s;
  }

  double random_number() {
    const double inf = std::numeric_limits<double>::infinity();
    return one_of(std::vector<double>{0.0, -0.0, 1.0, -2.5, 0.1, 1e-5, 3.0, 448.0, 1e300, inf, -inf, 1.0 / 3.0});
  }

  int64_t random_axis(int rank) { return rank == 0 ? 0 : pick(-rank, rank - 1); }

  void step(Fusion& f) {
    int n = static_cast<int>(f.values().size());
    Tensor x = f.tensor(pick(0, n - 1));
    Tensor y = f.tensor(pick(0, n - 1));
    switch (pick(0, 13)) {
      case 0: {
        static const std::vector<Tensor (*)(const Tensor&)> unary{
            neg, abs, exp, log, sqrt, rsqrt, reciprocal, tanh, sigmoid, erf, sin, cos, relu, gelu, gelu_tanh, silu, logical_not};
        one_of(unary)(x);
        break;
      }
      case 1: {
        static const std::vector<Tensor (*)(const Tensor&, const Tensor&)> binary{
            add, sub, mul, div, pow, maximum, minimum, logical_and, logical_or};
        one_of(binary)(x, y);
        break;
      }
      case 2: {
        static const std::vector<Tensor (*)(const Tensor&, double)> with_number{add, mul, sub, div, maximum, lt, ge};
        one_of(with_number)(x, coin() ? 2.0 : random_number());
        break;
      }
      case 3: {
        static const std::vector<Tensor (*)(const Tensor&, const Tensor&)> compare{eq, ne, lt, le, gt, ge};
        Tensor c = one_of(compare)(x, y);
        where(c, x, f.tensor(pick(0, n - 1)));
        break;
      }
      case 4: {
        double a = random_number(), b = random_number();
        clamp(x, std::min(a, b), std::max(a, b));
        break;
      }
      case 5: cast(x, random_dtype(true)); break;
      case 6: {
        std::vector<int64_t> axes;
        for (int i = 0; i < x.rank(); ++i)
          if (coin()) axes.push_back(coin() ? i : i - x.rank());
        bool keep = coin();
        switch (pick(0, 4)) {
          case 0: sum(x, axes, keep); break;
          case 1: max(x, axes, keep); break;
          case 2: min(x, axes, keep); break;
          case 3: mean(x, axes, keep); break;
          default: var_mean(x, axes.empty() ? std::vector<int64_t>{0} : axes, pick(0, 1), keep); break;
        }
        break;
      }
      case 7: {  // reshape: flatten, or split off a leading dim with -1
        Dim all(1);
        for (const auto& d : x.shape()) all = all * d;
        if (coin()) reshape(x, {all});
        else reshape(x, {x.rank() ? x.shape()[0] : Dim(1), Dim(-1)});
        break;
      }
      case 8: {
        std::vector<int64_t> p(x.rank());
        for (int i = 0; i < x.rank(); ++i) p[i] = i;
        std::shuffle(p.begin(), p.end(), rng_);
        permute(x, p);
        break;
      }
      case 9: {
        std::vector<int64_t> ones;
        for (int i = 0; i < x.rank(); ++i)
          if (x.shape()[i].is_one()) ones.push_back(i);
        if (ones.empty()) unsqueeze(x, random_axis(x.rank() + 1));
        else squeeze(x, {one_of(ones)});
        break;
      }
      case 10: {
        int64_t start = pick(-3, 3), end = coin() ? kSliceToEnd : pick(-2, 9);
        int64_t axis = random_axis(x.rank()), step = pick(1, 3);
        slice(x, axis, start, end, step);
        break;
      }
      case 11: {
        Shape s = x.shape();
        for (auto& d : s)
          if (d.is_one() && coin()) d = random_dim();
        if (coin()) s.insert(s.begin(), Dim(3));
        expand(x, s);
        break;
      }
      case 12: cat({x, x, y}, random_axis(x.rank())); break;
      default: constant(f, random_number(), random_dtype(false)); break;
    }
  }

  std::mt19937_64 rng_;
};

}  // namespace solder::test_support
