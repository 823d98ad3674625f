#pragma once
// The one parameter of every generated kernel: a by-value struct whose fields are all 8 bytes,
// which the compile driver packs as an int64 array. Codegen writes the struct from this layout
// and the driver packs by it, so the two cannot disagree:
//   R, C, dims[kMaxKernelDims], ptr[n], ld[n], stride[n][kMaxKernelDims], scratch[, bound[m]]
// `bound`: the values of the symbolic pad and window bounds the kernel reads (a cat of pieces of
// symbolic sizes, schedule/kernel_plan.h symbolic_bounds), only in kernels that have any.
#include <string>

namespace solder {

constexpr int kMaxKernelDims = 8;

struct ParamLayout {
  int operands = 0;
  int bounds = 0;
  static constexpr int kRows = 0, kCols = 1;
  static constexpr int dim(int d) { return 2 + d; }
  int ptr(int k) const { return dim(kMaxKernelDims) + k; }
  int ld(int k) const { return ptr(operands) + k; }
  int stride(int k, int d) const { return ld(operands) + k * kMaxKernelDims + d; }
  int scratch() const { return stride(operands, 0); }
  int bound(int i) const { return scratch() + 1 + i; }
  int size() const { return bound(bounds); }
  // The CUDA declaration of `struct Params`.
  std::string struct_text() const {
    const std::string n = std::to_string(operands), d = std::to_string(kMaxKernelDims);
    return "struct Params { i64 R, C; i64 dims[" + d + "]; const void* ptr[" + n + "]; i64 ld[" + n + "]; i64 stride[" +
           n + "][" + d + "]; float* scratch;" + (bounds ? " i64 bound[" + std::to_string(bounds) + "];" : "") + " };\n";
  }
};

}  // namespace solder
