#pragma once
// Pointwise programs with broadcast operands along every kind of axis (the flat template's
// row and column addressing): the CPU tier checks their plans, the GPU tier their values.
#include <string>
#include <vector>

#include "solder/fusion.h"

namespace solder::testing {

// Symbols by name, "1" for a size-1 dim: dims({"1", "M", "1"}).
inline Shape dims(const std::vector<std::string>& names) {
  Shape s;
  for (const auto& n : names) s.push_back(n == "1" ? Dim(1) : Dim::sym(n));
  return s;
}

// x * m cast to f32 (seed 3 #127: a [1, M, 1] mask over bf16 [B, M, K]).
inline Fusion masked(DType t, const std::vector<std::string>& m_dims) {
  Fusion f("masked");
  Tensor x = f.input("x", t, dims({"B", "M", "K"}));
  Tensor m = f.input("m", t, dims(m_dims));
  f.output(cast(x * m, DType::F32));
  return f;
}

// tanh of three inputs of different shapes ([A, 33], [7, C], [1, 513]): small pointwise kernels
// of one structure, which horizontal fusion stacks as one launch.
inline Fusion tanh_of_three_shapes() {
  Fusion f("pw");
  for (const Shape& s : {Shape{Dim::sym("A"), Dim(33)}, Shape{Dim(7), Dim::sym("C")}, Shape{Dim(1), Dim(513)}}) {
    const std::string name = "x" + std::to_string(f.inputs().size() + 1);
    f.output(tanh(f.input(name, DType::F32, s)));
  }
  return f;
}

// Broadcasts along every axis at once (seed 4 #016): [1,M,1], [1,M,K], [B,1,K], [K].
inline Fusion every_axis(DType t) {
  Fusion f("every_axis");
  Tensor x = f.input("x", t, dims({"B", "M", "K"}));
  Tensor a = f.input("a", t, dims({"1", "M", "1"}));
  Tensor b = f.input("b", t, dims({"1", "M", "K"}));
  Tensor c = f.input("c", t, dims({"B", "1", "K"}));
  Tensor w = f.input("w", t, dims({"K"}));
  f.output(x * a + b * c - w);
  return f;
}

}  // namespace solder::testing
