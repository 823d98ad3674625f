#include "ops/workloads.h"

#include <cmath>
#include <functional>
#include <map>

#include "ops/einsum.h"
#include "solder/error.h"

namespace solder {

namespace {

using Builder = std::function<void(Fusion&)>;

// W1, seed 004: two broadcast adds through the input precision, then layer norm (nvFuser's
// LayerNormFusedOp benchmark, input names as in the seed). The seed is f16; bf16 and f32
// variants give issue 5's dtype axis.
Builder w1_layer_norm_fused(DType t) {
  return [=](Fusion& f) {
    Dim B = Dim::sym("B"), H = Dim::sym("H");
    Tensor t0 = f.input("t0", t, {H});
    Tensor t1 = f.input("t1", t, {B, H});
    Tensor t2 = f.input("t2", t, {H});
    Tensor t3 = f.input("t3", t, {H});  // bias
    Tensor t4 = f.input("t4", t, {H});  // weight
    // One builder call per statement where two would be unsequenced (node order is hashed).
    Tensor t6 = cast(t1, DType::F32);
    Tensor t7 = cast(t0, DType::F32);
    Tensor t9 = cast(t6 + t7, t);
    Tensor t11 = cast(t9, DType::F32);
    Tensor t12 = cast(t2, DType::F32);
    Tensor t14 = cast(t11 + t12, t);
    f.output(layer_norm(t14, 1, t4, t3, 1e-5));
  };
}

// W2, seed 000: fp8 delayed-scaling cast. Saturation is an explicit clamp to the format's
// largest finite value; amax is taken of the unscaled input, in f32.
Builder w2_fp8(DType in, DType fp8, bool saturate) {
  return [=](Fusion& f) {
    Tensor a = f.input("a", in, {Dim::sym("N")});
    Tensor scale = f.input("scale", DType::F32, {});
    Tensor y = a * scale;
    if (saturate) {
      double m = fp8 == DType::F8E4M3 ? 448.0 : 57344.0;
      y = clamp(y, -m, m);
    }
    f.output(cast(y, fp8));
    f.output(max(cast(abs(a), DType::F32)));
  };
}

// W3, seed 001: per-slice layer norm + tanh, stacked, then a linear layer.
void w3_split_stack(Fusion& f) {
  Tensor x = f.input("x", DType::F32, {Dim::sym("B"), 16, 256});
  std::vector<Tensor> w, b;
  for (int i = 0; i < 16; ++i) {
    w.push_back(f.input("ln_w" + std::to_string(i), DType::F32, {256}));
    b.push_back(f.input("ln_b" + std::to_string(i), DType::F32, {256}));
  }
  Tensor fc_w = f.input("fc_w", DType::F32, {1024, 4096});
  Tensor fc_b = f.input("fc_b", DType::F32, {1024});
  std::vector<Tensor> parts;
  for (int i = 0; i < 16; ++i) parts.push_back(tanh(layer_norm(select(x, 1, i), 1, w[i], b[i])));
  f.output(relu(linear(cat(parts, 1), fc_w, fc_b)));
}

// W3, the hand-combined form: one layer norm (shared LayerNorm(256)) over every slice at once.
void w3_combined(Fusion& f) {
  Dim B = Dim::sym("B");
  Tensor x = f.input("x", DType::F32, {B, 16, 256});
  Tensor w = f.input("ln_w", DType::F32, {256});
  Tensor b = f.input("ln_b", DType::F32, {256});
  Tensor fc_w = f.input("fc_w", DType::F32, {1024, 4096});
  Tensor fc_b = f.input("fc_b", DType::F32, {1024});
  Tensor y = reshape(tanh(layer_norm(x, 1, w, b)), {B, 4096});
  f.output(relu(linear(y, fc_w, fc_b)));
}

// W4, seed 003: the six einsum cases at n = 16.
Builder w4_einsum(const char* eq, Shape a, Shape b) {
  return [=](Fusion& f) {
    Tensor x = f.input("a", DType::F32, a);
    Tensor y = f.input("b", DType::F32, b);
    f.output(einsum(eq, x, y));
  };
}

// W5: the single-op bandwidth probes in bf16.
void w5_softmax(Fusion& f) {
  Tensor x = f.input("x", DType::BF16, {Dim::sym("B"), Dim::sym("H")});
  f.output(softmax(x, -1));
}

void w5_rms_norm(Fusion& f) {
  Dim H = Dim::sym("H");
  Tensor x = f.input("x", DType::BF16, {Dim::sym("B"), H});
  Tensor w = f.input("w", DType::BF16, {H});
  f.output(rms_norm(x, 1, w));
}

void w5_gelu_bias(Fusion& f) {
  Dim H = Dim::sym("H");
  Tensor x = f.input("x", DType::BF16, {Dim::sym("B"), H});
  Tensor b = f.input("b", DType::BF16, {H});
  f.output(gelu_tanh(x + b));
}

// Outer (column) reductions: over leading or middle axes, the kept axis innermost in memory.
void outer_colsum_bf16(Fusion& f) {
  Tensor x = f.input("x", DType::BF16, {Dim::sym("B"), Dim::sym("H")});
  f.output(sum(cast(x, DType::F32), {0}));
}

void outer_var_mean_bf16(Fusion& f) {
  Tensor x = f.input("x", DType::BF16, {Dim::sym("B"), Dim::sym("H")});
  VarMean vm = var_mean(cast(x, DType::F32), {0});
  f.output(vm.var);
  f.output(vm.mean);
}

// A mean over the middle axis of a 3-d tensor, f16 in and out. (keepdim: the segmenter fuses
// elementwise math on a reduction result only where it keeps the reduced dims.)
void outer_mean_mid_f16(Fusion& f) {
  Tensor x = f.input("x", DType::F16, {Dim(4), Dim::sym("B"), Dim::sym("H")});
  f.output(cast(mean(cast(x, DType::F32), {1}, true), DType::F16));
}

// Batch-norm statistics of a channels-last activation [N, 28, 28, C] (N = B, C = H): the
// per-channel mean, 1 / sqrt(biased variance + eps) and the channel's max.
void outer_bn_stats_f16(Fusion& f) {
  Tensor x = f.input("x", DType::F16, {Dim::sym("B"), Dim(28), Dim(28), Dim::sym("H")});
  Tensor xf = cast(x, DType::F32);
  VarMean vm = var_mean(xf, {0, 1, 2}, 0, true);
  f.output(vm.mean);
  f.output(rsqrt(vm.var + 1e-5));
  f.output(max(xf, {0, 1, 2}, true));
}

// Outer persistent normalizations (outer_norm_scheduler.cpp): the statistics over a
// non-innermost axis used back at full size.
void outer_softmax_dim0_f32(Fusion& f) {
  f.output(softmax(f.input("x", DType::F32, {Dim::sym("B"), Dim::sym("H")}), 0));
}

// A scaled softmax over the middle axis with a boolean mask along that axis.
void outer_softmax_mid_mask_f16(Fusion& f) {
  Tensor x = f.input("x", DType::F16, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
  Tensor m = f.input("mask", DType::Bool, {Dim(1), Dim::sym("M"), Dim(1)});
  f.output(softmax(where(m, x * 0.125, constant(f, -INFINITY, DType::F16)), 1));
}

void outer_log_softmax_mid_f16(Fusion& f) {
  f.output(log_softmax(f.input("x", DType::F16, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")}), 1));
}

// A layer norm over the rows of a transposed view: xt is stored [H, B].
void outer_layer_norm_T_f16(Fusion& f) {
  Tensor xt = f.input("xt", DType::F16, {Dim::sym("H"), Dim::sym("B")});
  Tensor w = f.input("w", DType::F16, {Dim::sym("H")}), b = f.input("b", DType::F16, {Dim::sym("H")});
  f.output(layer_norm(permute(xt, {1, 0}), 1, w, b));
}

// x / sqrt(mean(x^2) + eps) * w over the rows of a transposed f32 view.
void outer_rms_norm_T_f32(Fusion& f) {
  Tensor xt = f.input("xt", DType::F32, {Dim::sym("H"), Dim::sym("B")});
  Tensor w = f.input("w", DType::F32, {Dim::sym("H")});
  Tensor x = permute(xt, {1, 0});
  f.output(x / sqrt(mean(x * x, {1}, true) + 1e-6) * w);
}

// A mean of squares over two axes of a view whose last two dims are swapped in memory.
void reduce_mean12_T_bf16(Fusion& f) {
  Tensor xt = f.input("xt", DType::BF16, {Dim::sym("B"), Dim::sym("K"), Dim::sym("M")});
  Tensor x = permute(xt, {0, 2, 1});
  f.output(mean(x * x, {1, 2}));
}

// Transposes (transpose_scheduler.cpp): operands that disagree on their fastest dim.
// x + a where x is a transposed view (xt is stored [H, B]) and a is contiguous [B, H].
void transpose_add_bf16(Fusion& f) {
  Tensor xt = f.input("xt", DType::BF16, {Dim::sym("H"), Dim::sym("B")});
  Tensor a = f.input("a", DType::BF16, {Dim::sym("B"), Dim::sym("H")});
  f.output(permute(xt, {1, 0}) + a);
}

// An NCHW -> NHWC layout change of an f16 activation [B, H, 28, 28] (C = H). The result is a
// view: a caller that wants it contiguous (out= buffers, --contiguous-outputs)
// gets one transpose kernel.
void transpose_nchw_nhwc_f16(Fusion& f) {
  Tensor x = f.input("x", DType::F16, {Dim::sym("B"), Dim::sym("H"), Dim(28), Dim(28)});
  f.output(permute(x, {0, 2, 3, 1}));
}

// x.t() of an f16 [B, H]: made contiguous, a transpose-copy (a view otherwise, as above).
void transpose_copy_f16(Fusion& f) {
  f.output(permute(f.input("x", DType::F16, {Dim::sym("B"), Dim::sym("H")}), {1, 0}));
}

// tanh(x + a).t() of bf16 [B, H]: made contiguous, the pointwise kernel writes its result
// transposed, straight into the output (no kernel + copy).
void transpose_tanh_out_bf16(Fusion& f) {
  Tensor x = f.input("x", DType::BF16, {Dim::sym("B"), Dim::sym("H")});
  Tensor a = f.input("a", DType::BF16, {Dim::sym("B"), Dim::sym("H")});
  f.output(permute(tanh(x + a), {1, 0}));
}

const std::map<std::string, Builder>& registry() {
  static const std::map<std::string, Builder> r = [] {
    std::map<std::string, Builder> m;
    m["w1_layer_norm_fused"] = w1_layer_norm_fused(DType::F16);
    m["w1_layer_norm_fused_bf16"] = w1_layer_norm_fused(DType::BF16);
    m["w1_layer_norm_fused_f32"] = w1_layer_norm_fused(DType::F32);
    for (DType in : {DType::BF16, DType::F32})
      for (DType fp8 : {DType::F8E4M3, DType::F8E5M2})
        for (bool sat : {true, false}) {
          std::string name = "w2_fp8_" + std::string(in == DType::BF16 ? "bf16" : "f32") + "_" +
                             (fp8 == DType::F8E4M3 ? "e4m3" : "e5m2") + (sat ? "_sat" : "_nosat");
          m[name] = w2_fp8(in, fp8, sat);
        }
    m["w3_split_stack"] = w3_split_stack;
    m["w3_combined"] = w3_combined;
    const int64_t n = 16;
    m["w4_einsum_1"] = w4_einsum("bij,jk", {2, n, n}, {n, n});
    m["w4_einsum_2"] = w4_einsum("bij,jk", {2, n, 1}, {n, n});
    m["w4_einsum_3"] = w4_einsum("bij,jk", {2, n, n}, {1, n});
    m["w4_einsum_4"] = w4_einsum("bijk,bklj->bli", {2, 8, n, n}, {2, n, 8, n});
    m["w4_einsum_5"] = w4_einsum("bijk,bklj->bli", {2, 8, n, 1}, {2, n, 8, n});
    m["w4_einsum_6"] = w4_einsum("bijk,bklj->bli", {2, 8, n, n}, {2, n, 8, 1});
    m["w5_softmax_bf16"] = w5_softmax;
    m["w5_rms_norm_bf16"] = w5_rms_norm;
    m["w5_gelu_bias_bf16"] = w5_gelu_bias;
    m["outer_colsum_bf16"] = outer_colsum_bf16;
    m["outer_var_mean_bf16"] = outer_var_mean_bf16;
    m["outer_mean_mid_f16"] = outer_mean_mid_f16;
    m["outer_bn_stats_f16"] = outer_bn_stats_f16;
    m["outer_softmax_dim0_f32"] = outer_softmax_dim0_f32;
    m["outer_softmax_mid_mask_f16"] = outer_softmax_mid_mask_f16;
    m["outer_log_softmax_mid_f16"] = outer_log_softmax_mid_f16;
    m["outer_layer_norm_T_f16"] = outer_layer_norm_T_f16;
    m["outer_rms_norm_T_f32"] = outer_rms_norm_T_f32;
    m["reduce_mean12_T_bf16"] = reduce_mean12_T_bf16;
    m["transpose_add_bf16"] = transpose_add_bf16;
    m["transpose_nchw_nhwc_f16"] = transpose_nchw_nhwc_f16;
    m["transpose_copy_f16"] = transpose_copy_f16;
    m["transpose_tanh_out_bf16"] = transpose_tanh_out_bf16;
    return m;
  }();
  return r;
}

}  // namespace

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const auto& [name, _] : registry()) names.push_back(name);
  return names;
}

Fusion make_workload(const std::string& name) {
  auto it = registry().find(name);
  if (it == registry().end()) {
    std::string known;
    for (const auto& n : workload_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown workload '" + name + "' (known: " + known + ")");
  }
  Fusion f(name);
  it->second(f);
  return f;
}

}  // namespace solder
