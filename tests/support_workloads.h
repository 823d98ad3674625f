#pragma once
// Small builders for kernel tests (the full workload set lives in src/ops/workloads.cpp).
#include "solder/fusion.h"

namespace solder::testing {

inline Fusion w1_layer_norm(DType t = DType::F16) {
  Fusion f("w1");
  Dim B = Dim::sym("B"), H = Dim::sym("H");
  Tensor t0 = f.input("t0", t, {H}), t1 = f.input("t1", t, {B, H}), t2 = f.input("t2", t, {H});
  Tensor t3 = f.input("t3", t, {H}), t4 = f.input("t4", t, {H});
  Tensor t9 = cast(cast(t1, DType::F32) + cast(t0, DType::F32), t);
  Tensor t14 = cast(cast(t9, DType::F32) + cast(t2, DType::F32), t);
  f.output(layer_norm(t14, 1, t4, t3, 1e-5));
  return f;
}

inline Fusion fp8_cast(DType in, DType out, bool sat) {
  Fusion f("w2");
  Tensor a = f.input("a", in, {Dim::sym("N")});
  Tensor s = f.input("scale", DType::F32, {});
  double m = out == DType::F8E4M3 ? 448.0 : 57344.0;
  Tensor y = a * s;
  if (sat) y = clamp(y, -m, m);
  f.output(cast(y, out));
  f.output(amax(cast(abs(a), DType::F32)));
  return f;
}

inline Fusion softmax_fusion(DType t) {
  Fusion f("softmax");
  f.output(softmax(f.input("x", t, {Dim::sym("B"), Dim::sym("H")}), 1));
  return f;
}

inline Fusion rms_norm_fusion(DType t) {
  Fusion f("rms_norm");
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("H")});
  f.output(rms_norm(x, 1, f.input("w", t, {Dim::sym("H")}), 1e-6));
  return f;
}

inline Fusion gelu_bias(DType t) {
  Fusion f("gelu_bias");
  Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("H")});
  f.output(gelu_tanh(x + f.input("b", t, {Dim::sym("H")})));
  return f;
}

}  // namespace solder::testing
