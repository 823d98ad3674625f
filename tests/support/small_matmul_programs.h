#pragma once
// Matmuls and linears that run as reduction kernels (passes/small_matmuls.h: f64), in every
// operand form torch.matmul and einsum hand over: 2-D, batched with broadcasts, 1-D operands,
// a contracted dim merged from two by a reshape (an einsum's flattening), a linear with and
// without bias, an epilogue, a large one. The CPU tier checks the rewrite and its
// values on the reference, the GPU tier (and the CPU kernel simulator) the kernels.
#include <string>
#include <vector>

namespace solder::testing {

struct SmallMatmulProgram {
  std::string name, text;
};

inline std::vector<SmallMatmulProgram> small_matmul_programs() {
  auto prog = [](const std::string& name, const std::string& t, const std::string& body) {
    std::string s = body;
    for (size_t at; (at = s.find("$T")) != std::string::npos;) s.replace(at, 2, t);
    return SmallMatmulProgram{name + "_" + t, "fusion " + name + " {\n" + s + "}\n"};
  };
  std::vector<SmallMatmulProgram> out;
  out.push_back(prog("mm", "f64", "  input a: $T[37, 19]\n  input b: $T[19, 23]\n  c = matmul(a, b)\n  output c\n"));
  out.push_back(prog("bmm_bcast", "f64", "  input a: $T[3, 5, 17]\n  input b: $T[17, 9]\n  c = matmul(a, b)\n  output c\n"));
  out.push_back(prog("linear_bias", "f64",
                     "  input x: $T[5, 7, 24]\n  input w: $T[11, 24]\n  input b: $T[11]\n  y = linear(x, w, b)\n  output y\n"));
  out.push_back(prog("bmm_b_batched", "f64", "  input a: $T[7, 33]\n  input b: $T[2, 33, 5]\n  c = matmul(a, b)\n  output c\n"));
  out.push_back(prog("vecmat", "f64", "  input a: $T[31]\n  input b: $T[31, 6]\n  c = matmul(a, b)\n  output c\n"));
  out.push_back(prog("matvec", "f64", "  input a: $T[6, 31]\n  input b: $T[31]\n  c = matmul(a, b)\n  output c\n"));
  out.push_back(prog("dot", "f64", "  input a: $T[100]\n  input b: $T[100]\n  c = matmul(a, b)\n  output c\n"));
  out.push_back(prog("linear", "f64", "  input x: $T[9, 24]\n  input w: $T[3, 24]\n  y = linear(x, w)\n  output y\n"));
  out.push_back(prog("mm_relu", "f64", "  input a: $T[16, 40]\n  input b: $T[40, 8]\n  c = matmul(a, b)\n  r = relu(c)\n  output r\n"));
  // einsum('bijk,bklj->bli') flattened as frontends hand it: (j, k) merged on both sides, b's
  // merge a copy as written.
  out.push_back(prog("einsum_merged_k", "f64",
                     "  input a: $T[2, 3, 5, 7]\n  input b: $T[2, 7, 4, 5]\n  a2 = reshape(a, shape=[2, 3, 35])\n"
                     "  bp = permute(b, axes=[0, 3, 1, 2])\n  b2 = reshape(bp, shape=[2, 35, 4])\n  c = matmul(a2, b2)\n"
                     "  output c\n"));
  // K merged on a only: b splits to a's factors.
  out.push_back(prog("merged_k_a", "f64",
                     "  input a: $T[4, 6, 10]\n  input b: $T[60, 3]\n  a2 = reshape(a, shape=[4, 60])\n  c = matmul(a2, b)\n"
                     "  output c\n"));
  // A 1-D b beside an a whose K was merged: read as written (no factors).
  out.push_back(prog("merged_k_matvec", "f64",
                     "  input a: $T[4, 6, 10]\n  input b: $T[60]\n  a2 = reshape(a, shape=[4, 60])\n  c = matmul(a2, b)\n"
                     "  output c\n"));
  out.push_back(prog("mm_large", "f64", "  input a: $T[129, 1000]\n  input b: $T[1000, 65]\n  c = matmul(a, b)\n  output c\n"));
  return out;
}

}  // namespace solder::testing
