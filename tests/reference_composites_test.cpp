// Composite ops (layer_norm, rms_norm, softmax, log_softmax) run through the reference
// executor, checked against the textbook formulas evaluated here in double; and the
// executor's input validation.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "reference_test_util.h"
#include "solder/error.h"

using namespace solder;
using namespace solder::test;

namespace {
// Per-dtype tolerance: the reference computes statistics in f32 and rounds the result once.
double tolerance(DType t) {
  switch (t) {
    case DType::F16: return 2e-3;
    case DType::BF16: return 1.6e-2;
    default: return 2e-6;
  }
}

const DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};

// Applies `row_fn` to each row of length n (the trailing n elements of the flattened data).
std::vector<double> per_row(const std::vector<double>& x, size_t n,
                            const std::function<void(const double*, double*)>& row_fn) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r < x.size() / n; ++r) row_fn(&x[r * n], &y[r * n]);
  return y;
}
}  // namespace

TEST(ReferenceComposites, LayerNorm) {
  const double eps = 1e-5;
  for (DType t : kFloatTypes) {
    for (int axes : {1, 2}) {
      Fusion f("ln");
      Tensor x = f.input("x", t, {Dim::sym("B"), 3, 5});
      Shape ps = axes == 1 ? Shape{5} : Shape{3, 5};
      Tensor w = f.input("w", t, ps);
      Tensor b = f.input("b", t, ps);
      f.output(layer_norm(x, axes, w, b, eps));
      f.output(layer_norm(x, axes, std::nullopt, std::nullopt, eps));
      std::vector<int64_t> pshape = axes == 1 ? std::vector<int64_t>{5} : std::vector<int64_t>{3, 5};
      HostTensor xt = random_tensor(t, {4, 3, 5}, 1, -3, 3), wt = random_tensor(t, pshape, 2, 0.5, 1.5),
                 bt = random_tensor(t, pshape, 3);
      auto out = run_reference(f, {xt, wt, bt});
      auto xv = values(xt), wv = values(wt), bv = values(bt);
      const size_t n = wv.size();
      auto norm = [&](bool affine) {
        return per_row(xv, n, [&](const double* in, double* o) {
          double m = 0, v = 0;
          for (size_t i = 0; i < n; ++i) m += in[i] / n;
          for (size_t i = 0; i < n; ++i) v += (in[i] - m) * (in[i] - m) / n;
          for (size_t i = 0; i < n; ++i) o[i] = (in[i] - m) / std::sqrt(v + eps) * (affine ? wv[i] : 1) + (affine ? bv[i] : 0);
        });
      };
      std::string what = std::string(dtype_name(t)) + " axes=" + std::to_string(axes);
      expect_tensor(out[0], t, {4, 3, 5}, norm(true), tolerance(t), what + " affine");
      expect_tensor(out[1], t, {4, 3, 5}, norm(false), tolerance(t), what);
    }
  }
}

TEST(ReferenceComposites, RmsNorm) {
  const double eps = 1e-6;
  for (DType t : kFloatTypes) {
    Fusion f("rms");
    Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("H")});
    Tensor w = f.input("w", t, {Dim::sym("H")});
    f.output(rms_norm(x, 1, w, eps));
    HostTensor xt = random_tensor(t, {3, 7}, 4, -2, 2), wt = random_tensor(t, {7}, 5);
    auto out = run_reference(f, {xt, wt});
    auto wv = values(wt);
    auto want = per_row(values(xt), 7, [&](const double* in, double* o) {
      double ms = 0;
      for (int i = 0; i < 7; ++i) ms += in[i] * in[i] / 7;
      for (int i = 0; i < 7; ++i) o[i] = in[i] / std::sqrt(ms + eps) * wv[i];
    });
    expect_tensor(out[0], t, {3, 7}, want, tolerance(t), std::string(dtype_name(t)));
  }
}

TEST(ReferenceComposites, SoftmaxAndLogSoftmax) {
  for (DType t : kFloatTypes) {
    Fusion f("sm");
    Tensor x = f.input("x", t, {4, 6});
    f.output(softmax(x, -1));
    f.output(log_softmax(x, -1));
    f.output(softmax(x, 0));
    HostTensor xt = random_tensor(t, {4, 6}, 6, -8, 8);
    auto out = run_reference(f, {xt});
    auto xv = values(xt);
    auto soft = [](const std::vector<double>& v, bool take_log) {
      double mx = -INFINITY, s = 0;
      for (double a : v) mx = std::max(mx, a);
      for (double a : v) s += std::exp(a - mx);
      std::vector<double> r;
      for (double a : v) r.push_back(take_log ? a - mx - std::log(s) : std::exp(a - mx) / s);
      return r;
    };
    std::vector<double> want_row, want_log, want_col(24);
    for (int r = 0; r < 4; ++r) {
      std::vector<double> row(xv.begin() + r * 6, xv.begin() + r * 6 + 6);
      for (double v : soft(row, false)) want_row.push_back(v);
      for (double v : soft(row, true)) want_log.push_back(v);
    }
    for (int c = 0; c < 6; ++c) {
      std::vector<double> col;
      for (int r = 0; r < 4; ++r) col.push_back(xv[r * 6 + c]);
      auto s = soft(col, false);
      for (int r = 0; r < 4; ++r) want_col[r * 6 + c] = s[r];
    }
    std::string what(dtype_name(t));
    expect_tensor(out[0], t, {4, 6}, want_row, tolerance(t), what + " softmax");
    expect_tensor(out[1], t, {4, 6}, want_log, tolerance(t), what + " log_softmax");
    expect_tensor(out[2], t, {4, 6}, want_col, tolerance(t), what + " softmax(0)");
  }
}

namespace {
void expect_input_error(const Fusion& f, const std::vector<HostTensor>& in, const std::string& name) {
  try {
    run_reference(f, in);
    FAIL() << "expected an error naming " << name;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(ReferenceValidation, InputErrorsNameTheInput) {
  Fusion f("ln");
  Dim B = Dim::sym("B"), H = Dim::sym("H");
  Tensor x = f.input("x", DType::F16, {B, H});
  Tensor w = f.input("weight", DType::F16, {H});
  Tensor k = f.input("keys", DType::F32, {B, 4});
  f.output(layer_norm(x, 1, w, std::nullopt) + cast(sum(k, {1}, true), DType::F16));
  auto good_x = random_tensor(DType::F16, {2, 8}, 1), good_w = random_tensor(DType::F16, {8}, 2),
       good_k = random_tensor(DType::F32, {2, 4}, 3);
  EXPECT_NO_THROW(run_reference(f, {good_x, good_w, good_k}));
  // Wrong count: the message lists the inputs, so the missing one is named.
  expect_input_error(f, {good_x, good_w}, "keys");
  // Wrong dtype.
  expect_input_error(f, {good_x, random_tensor(DType::F32, {8}, 2), good_k}, "weight");
  // H is 8 from x, but weight has 7.
  expect_input_error(f, {good_x, random_tensor(DType::F16, {7}, 2), good_k}, "weight");
  // B disagrees between x and k.
  expect_input_error(f, {good_x, good_w, random_tensor(DType::F32, {3, 4}, 3)}, "keys");
  // A constant dim and a rank mismatch.
  expect_input_error(f, {good_x, good_w, random_tensor(DType::F32, {2, 5}, 3)}, "keys");
  expect_input_error(f, {random_tensor(DType::F16, {16}, 1), good_w, good_k}, "x");
}
