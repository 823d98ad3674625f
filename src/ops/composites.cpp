// Composite ops built from primitives. Each mirrors the PyTorch function of the same name:
// low-precision inputs are upcast to f32, statistics are computed in f32 and the result is cast
// back to the input dtype, so the fused kernel and the reference see the same program.
#include "solder/error.h"
#include "solder/fusion.h"

namespace solder {

namespace {
bool low_precision(DType t) { return t == DType::F16 || t == DType::BF16; }
Tensor upcast(const Tensor& x) { return low_precision(x.dtype()) ? cast(x, DType::F32) : x; }

// A composite's result as eager's kernel for it lays it out: contiguous.
Tensor contiguous_result(Tensor t) {
  t.fusion().mark_contiguous_result(t.id());
  return t;
}

std::vector<int64_t> trailing_axes(const Tensor& x, int n, const char* who) {
  if (n < 1 || n > x.rank())
    throw Error(std::string(who) + "(" + x.describe() + "): cannot normalize over the last " + std::to_string(n) + " dims");
  std::vector<int64_t> axes;
  for (int i = x.rank() - n; i < x.rank(); ++i) axes.push_back(i);
  return axes;
}

void check_param(const Tensor& x, const Tensor& p, int n, const char* who, const char* what) {
  Shape want(x.shape().end() - n, x.shape().end());
  if (!(p.shape() == want))
    throw Error(std::string(who) + ": " + what + " " + p.describe() + " must have shape " + shape_str(want) +
                " (the normalized dims of " + x.describe() + ")");
}
}  // namespace

Tensor layer_norm(const Tensor& x, int norm_axes, std::optional<Tensor> weight, std::optional<Tensor> bias, double eps) {
  auto axes = trailing_axes(x, norm_axes, "layer_norm");
  if (!is_floating(x.dtype()) || is_fp8(x.dtype())) throw Error("layer_norm(" + x.describe() + "): expected f16/bf16/f32/f64");
  Tensor xf = upcast(x);
  auto [v, m] = var_mean(xf, axes, /*correction=*/0, /*keepdim=*/true);
  // One builder call per statement: C++ leaves operand evaluation order unspecified, and node
  // order is part of the fusion's hash and text.
  Tensor centered = xf - m;
  Tensor inv_std = rsqrt(v + eps);
  Tensor y = centered * inv_std;
  if (weight) {
    check_param(x, *weight, norm_axes, "layer_norm", "weight");
    y = y * upcast(*weight);
  }
  if (bias) {
    check_param(x, *bias, norm_axes, "layer_norm", "bias");
    y = y + upcast(*bias);
  }
  return contiguous_result(cast(y, x.dtype()));
}

Tensor rms_norm(const Tensor& x, int norm_axes, std::optional<Tensor> weight, double eps) {
  auto axes = trailing_axes(x, norm_axes, "rms_norm");
  if (!is_floating(x.dtype()) || is_fp8(x.dtype())) throw Error("rms_norm(" + x.describe() + "): expected f16/bf16/f32/f64");
  Tensor xf = upcast(x);
  Tensor y = xf * rsqrt(mean(xf * xf, axes, true) + eps);
  if (weight) {
    check_param(x, *weight, norm_axes, "rms_norm", "weight");
    y = y * upcast(*weight);
  }
  return contiguous_result(cast(y, x.dtype()));
}

Tensor softmax(const Tensor& x, int64_t axis) {
  if (!is_floating(x.dtype()) || is_fp8(x.dtype())) throw Error("softmax(" + x.describe() + "): expected f16/bf16/f32/f64");
  Tensor xf = upcast(x);
  Tensor e = exp(xf - max(xf, {axis}, true));
  return contiguous_result(cast(e / sum(e, {axis}, true), x.dtype()));
}

Tensor log_softmax(const Tensor& x, int64_t axis) {
  if (!is_floating(x.dtype()) || is_fp8(x.dtype())) throw Error("log_softmax(" + x.describe() + "): expected f16/bf16/f32/f64");
  Tensor xf = upcast(x);
  Tensor s = xf - max(xf, {axis}, true);
  return contiguous_result(cast(s - log(sum(exp(s), {axis}, true)), x.dtype()));
}

}  // namespace solder
