// The flat template's broadcast and sliced operands on the GPU against the reference: [1, M, 1]
// operands read once per row (row/dims), [B, 1, K] and [1, M, K] ones as vectors from their
// rows' bases (full/dims), one row of R x C (one_row) with vectors across row ends, phase-shifted
// rows, and full reductions over slices of wider tensors read as rows. f32/f16/bf16; odd sizes
// (C = 4097, 333, 1), size-1 dims, padded rows and misaligned inputs; every output element
// written (outputs start as NaN), replays give the same bits.
#include <gtest/gtest.h>

#include "support/flat_programs.h"
#include "support/shift_programs.h"

#include <cstring>

#include "gpu_compare.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"

using namespace solder;
using namespace solder::testing;
using namespace solder::gpu_testing;

namespace {

// Runs f (outputs poisoned first, then twice more) against the reference; returns the
// launches' "name category params". `deterministic`: a replay must give the same bits. Not for
// a full reduction's sums: its blocks add their totals with float atomics, in whatever order
// they finish (max/min are exact).
std::string check(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, Layout layout, const std::string& what,
                  bool deterministic = true) {
  return check_against_reference(f, shapes, layout, what, {.seed = 23, .deterministic = deterministic});
}

Fusion rows_and_weight(DType t) {
  Fusion f("rows_and_weight");
  Tensor x = f.input("x", t, dims({"B", "M", "K"}));
  Tensor a = f.input("a", t, dims({"B", "1", "K"}));
  Tensor b = f.input("b", t, dims({"B", "M", "1"}));
  Tensor s = f.input("s", t, dims({"B", "1", "1"}));
  f.output(x * a + b * s);
  return f;
}

// Selects in pairs under a row's mask, then products by a column and a [M, K] operand, and a
// select under a column's mask (seed 51 #030: the pair loop's first select fell back to
// elements and its condition's code went with it).
Fusion paired_where(DType t) {
  Fusion f("paired_where");
  Tensor x = f.input("x", t, dims({"B", "M", "K"}));
  Tensor m = f.input("m", DType::Bool, dims({"B", "1", "1"}));
  Tensor y = f.input("y", t, dims({"1", "1", "K"}));
  Tensor z = f.input("z", t, dims({"M", "K"}));
  Tensor n = f.input("n", DType::Bool, dims({"1", "1", "K"}));
  Tensor zero = constant(f, 0.0, t);
  f.output(clamp(where(n, sigmoid(where(m, x, zero) * y * z), zero), -1.5, 2.0));
  return f;
}

// Full reductions of x[:, 1:] (rows one element off alignment, at a row stride of W).
Fusion slice_reduce(DType t, int which) {
  Fusion f("slice_reduce");
  Tensor x = f.input("x", t, dims({"B", "W"}));
  Tensor s = slice(x, 1, 1);
  if (which == 0) f.output(amax(s));
  else if (which == 1) f.output(mean(cast(s, DType::F32)));
  else f.output(sum(cast(s, DType::F32) * 0.5));
  return f;
}

const std::vector<Bindings>& pointwise_sizes() {
  static const std::vector<Bindings> sizes{{{"B", 8}, {"M", 100}, {"K", 4097}}, {{"B", 3}, {"M", 7}, {"K", 333}},
                                           {{"B", 5}, {"M", 9}, {"K", 1}},      {{"B", 1}, {"M", 1000}, {"K", 64}},
                                           {{"B", 64}, {"M", 100}, {"K", 512}}, {{"B", 7}, {"M", 1}, {"K", 770}},
                                           {{"B", 16}, {"M", 33}, {"K", 768}}};
  return sizes;
}

}  // namespace

TEST(GpuFlatIndex, BroadcastOperandsAcrossSizesAndLayouts) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const Bindings& b : pointwise_sizes()) {
      const std::vector<std::pair<std::string, Fusion>> programs{{"masked [1,M,1]", masked(t, {"1", "M", "1"})},
                                                                 {"masked [B,1,1]", masked(t, {"B", "1", "1"})},
                                                                 {"every axis", every_axis(t)},
                                                                 {"rows and weight", rows_and_weight(t)},
                                                                 {"paired where", paired_where(t)}};
      for (const auto& [name, f] : programs)
        for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
          const std::string what = std::string(dtype_name(t)) + " " + name + sizes_text(b) + " layout " +
                                   std::to_string(static_cast<int>(l));
          const auto shapes = resolve_input_shapes(f, {}, b);
          const std::string launches = check(f, shapes, l, what);
          EXPECT_NE(launches.find(" pointwise "), std::string::npos) << what << ": " << launches;
        }
    }
}

// The forms the schedulers pick for the sweep's shapes: one row of R x C (seed 3 #127, seed 4
// #133) and vectors from row bases (seed 3 #128), at their sizes, contiguous.
TEST(GpuFlatIndex, TheSweepsShapes) {
  SKIP_WITHOUT_GPU();
  struct Case {
    std::string what;
    Fusion f;
    Bindings sizes;
  };
  std::vector<Case> cases{{"#127", masked(DType::BF16, {"1", "M", "1"}), {{"B", 128}, {"M", 100}, {"K", 4097}}},
                          {"#133", masked(DType::F16, {"1", "M", "1"}), {{"B", 64}, {"M", 1000}, {"K", 512}}},
                          {"#016", every_axis(DType::BF16), {{"B", 32}, {"M", 128}, {"K", 4097}}},
                          {"#097", rows_and_weight(DType::BF16), {{"B", 8}, {"M", 1000}, {"K", 4097}}}};
  for (Case& c : cases) {
    const std::string launches = check(c.f, resolve_input_shapes(c.f, {}, c.sizes), Layout::Contiguous, c.what);
    EXPECT_NE(launches.find(" pointwise "), std::string::npos) << c.what << ": " << launches;
  }
}

TEST(GpuFlatIndex, FullReductionsOfSlices) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (int which : {0, 1, 2})
      for (const Bindings& b : std::vector<Bindings>{{{"B", 2048}, {"W", 16385}},
                                                     {{"B", 37}, {"W", 4098}},
                                                     {{"B", 129}, {"W", 334}},
                                                     {{"B", 1}, {"W", 1001}},
                                                     {{"B", 300}, {"W", 2}}})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
          const Fusion f = slice_reduce(t, which);
          const std::string what = std::string(dtype_name(t)) + " reduction " + std::to_string(which) + sizes_text(b) +
                                   " layout " + std::to_string(static_cast<int>(l));
          check(f, resolve_input_shapes(f, {}, b), l, what, /*deterministic=*/which == 0);
        }
}

// Rows of D = 16..128 under a permuted view, with a cat's windows: one row of R x C (the 2-D
// plan would idle most of each block's lanes), odd S, size-1 dims, misaligned inputs.
TEST(GpuFlatIndex, ShortRowsOfAPermutedViewAsOneRow) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (int64_t d : {16, 64, 128})
      for (const Bindings& b : std::vector<Bindings>{{{"B", 2}, {"S", 37}, {"H", 3}}, {{"B", 1}, {"S", 1}, {"H", 5}},
                                                     {{"B", 4}, {"S", 1024}, {"H", 8}}})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
          Fusion f("permuted_rope");
          {
            Tensor q = f.input("q", t, {Dim::sym("B"), Dim::sym("S"), Dim::sym("H"), Dim(d)});
            Tensor c = f.input("c", t, {Dim::sym("S"), Dim(d)});
            Tensor s = f.input("s", t, {Dim::sym("S"), Dim(d)});
            Tensor x = permute(q, {0, 2, 1, 3});
            Tensor rot = cat({-slice(x, 3, d / 2), slice(x, 3, 0, d / 2)}, 3);
            f.output(x * c + rot * s);
          }
          const std::string what = std::string(dtype_name(t)) + " rope D=" + std::to_string(d) + sizes_text(b) + " layout " +
                                   std::to_string(static_cast<int>(l));
          const std::string launches = check(f, resolve_input_shapes(f, {}, b), l, what);
          if (l == Layout::Contiguous && b.at("S") > 1) EXPECT_NE(launches.find("one_row"), std::string::npos) << what << ": " << launches;
        }
}

// Short rows at another row stride (halves of a gated input in rows of 2h + off + 8, at offsets
// that keep the halves vec-aligned) as one row of R x C: full/dims inputs addressed per vector
// from their rows' offsets; odd rows, a single row, padded and misaligned layouts.
TEST(GpuFlatIndex, ShortRowsAtAnotherStrideAsOneRow) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (int64_t h : {64, 48, 8})
      for (int64_t off : {0, 8})
        for (int64_t rows : {8192, 37, 1})
          for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
            const Fusion f = gated_halves(t, h, off, off == 8, false);
            const Bindings b{{"B", rows}, {"W", 2 * h + off + 8}};
            const std::string what = std::string(dtype_name(t)) + " halves h=" + std::to_string(h) + " off " + std::to_string(off) +
                                     sizes_text(b) + " layout " + std::to_string(static_cast<int>(l));
            const std::string launches = check(f, resolve_input_shapes(f, {}, b), l, what);
            if (l == Layout::Contiguous && rows == 8192) EXPECT_NE(launches.find("one_row"), std::string::npos) << what << ": " << launches;
          }
}

// Every other element of a row, both phases (x[:, ::2] and x[:, 1::2], read element by element
// at a VEC capped by their stride): rows of 2 to 12288, odd halves, misaligned and sliced inputs.
TEST(GpuFlatIndex, StridedColumnsAtEitherPhase) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (int64_t h : {12288, 3002, 1026, 64, 2})
      for (int64_t rows : {4096, 37, 1})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
          Fusion f("strided");
          Tensor x = f.input("x", t, {Dim::sym("B"), Dim(h)});
          Tensor even = slice(x, 1, 0, h, 2), odd = slice(x, 1, 1, h, 2);
          f.output(cast(sigmoid(cast(even, DType::F32)) * cast(odd, DType::F32), t));
          const std::string what = std::string(dtype_name(t)) + " strided H=" + std::to_string(h) + " B=" + std::to_string(rows) +
                                   " layout " + std::to_string(static_cast<int>(l));
          const std::string launches = check(f, resolve_input_shapes(f, {}, {{"B", rows}}), l, what);
          EXPECT_NE(launches.find(" pointwise "), std::string::npos) << what << ": " << launches;
        }
}
