// The flat template's broadcast and sliced operands on the GPU against the reference: [1, M, 1]
// operands read once per row (row/dims), [B, 1, K] and [1, M, K] ones as vectors from their
// rows' bases (full/dims), one row of R x C (one_row) with vectors across row ends, phase-shifted
// rows, and full reductions over slices of wider tensors read as rows. f32/f16/bf16; odd sizes
// (C = 4097, 333, 1), size-1 dims, padded rows and misaligned inputs; every output element
// written (outputs start as NaN), replays give the same bits.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu_compare.h"
#include "ir/parser.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"

using namespace solder;
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

Shape dims(const std::vector<std::string>& names) {
  Shape s;
  for (const auto& n : names) s.push_back(n == "1" ? Dim(1) : Dim::sym(n));
  return s;
}

Fusion masked(DType t, const std::vector<std::string>& m_dims) {
  Fusion f("masked");
  Tensor x = f.input("x", t, dims({"B", "M", "K"}));
  Tensor m = f.input("m", t, dims(m_dims));
  f.output(cast(x * m, DType::F32));
  return f;
}

Fusion every_axis(DType t) {
  Fusion f("every_axis");
  Tensor x = f.input("x", t, dims({"B", "M", "K"}));
  Tensor a = f.input("a", t, dims({"1", "M", "1"}));
  Tensor b = f.input("b", t, dims({"1", "M", "K"}));
  Tensor c = f.input("c", t, dims({"B", "1", "K"}));
  Tensor w = f.input("w", t, dims({"K"}));
  f.output(x * a + b * c - w);
  return f;
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

std::string sizes_text(const Bindings& b) {
  std::string s;
  for (const auto& [k, v] : b) s += " " + k + "=" + std::to_string(v);
  return s;
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
                                                                 {"rows and weight", rows_and_weight(t)}};
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

namespace {

Fusion rope_program(const std::string& t, int64_t k) {
  const std::string K = std::to_string(k), h = std::to_string(k / 2);
  return parse_fusion("fusion rope {\n  input x: " + t + "[B, M, " + K + "]\n  input c: " + t + "[M, " + K + "]\n  input s: " + t +
                      "[M, " + K + "]\n  a = slice(x, axis=2, start=" + h + ", end=" + K + ")\n  ng = neg(a)\n  b = slice(x, axis=2, "
                      "start=0, end=" + h + ")\n  rot = cat(ng, b, axis=2)\n  xc = mul(x, c)\n  rs = mul(rot, s)\n  y = add(xc, rs)\n"
                      "  output y\n}\n");
}

}  // namespace

// Held columns (rows_per_block): column operands loaded once per block and held across its
// rows; rows not a multiple of the group (the last group row by row),
// the element tail of a row, vectors of 1 (misaligned inputs). Rotate-half RoPE (a window and
// pads beside cos and sin) and a weight and bias over rows, pinned and as scheduled.
TEST(GpuFlatIndex, HeldColumnsAcrossRows) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::string> pins{"", "one_row=0,col_vec=0,rows_per_block=1", "one_row=0,col_vec=0,rows_per_block=2",
                                      "one_row=0,col_vec=0,rows_per_block=4", "one_row=0,col_vec=0,rows_per_block=16"};
  for (const char* t : {"f16", "bf16", "f32"}) {
    const Fusion f = rope_program(t, 128);
    for (const Bindings& b : std::vector<Bindings>{{{"B", 16}, {"M", 512}}, {{"B", 37}, {"M", 5}}, {{"B", 3}, {"M", 7}}, {{"B", 1}, {"M", 1}}})
      for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced})
        for (const std::string& pin : pins) {
          const std::string what = std::string(t) + " rope" + sizes_text(b) + " layout " + std::to_string(static_cast<int>(l)) + " plan '" + pin + "'";
          const std::string launches = check_against_reference(f, resolve_input_shapes(f, {}, b), l, what, {.seed = 5, .plan = pin});
          EXPECT_NE(launches.find(" pointwise "), std::string::npos) << what << ": " << launches;
        }
  }
  // The scheduler's choice at issue 26's size holds 8 rows per block.
  const Fusion big = rope_program("bf16", 128);
  const std::string launches =
      check_against_reference(big, resolve_input_shapes(big, {}, {{"B", 64}, {"M", 4096}}), Layout::Contiguous, "rope bf16 64x4096");
  EXPECT_NE(launches.find("rows_per_block=8"), std::string::npos) << launches;
  const Fusion wb = parse_fusion(
      "fusion wb {\n  input x: bf16[B, H]\n  input w: bf16[H]\n  input b: f32[H]\n  input r: f32[B, 1]\n  t = cast(x, dtype=f32)\n"
      "  u = mul(t, w)\n  v = add(u, b)\n  z = mul(v, r)\n  y = cast(z, dtype=bf16)\n  output y\n  output v\n}\n");
  for (int64_t h : {8, 1024, 2056})
    for (int64_t bsz : {1, 37, 100})
      for (const std::string& pin : pins) {
        const std::string what = "weight and bias B=" + std::to_string(bsz) + " H=" + std::to_string(h) + " plan '" + pin + "'";
        check_against_reference(wb, {{bsz, h}, {h}, {h}, {bsz, 1}}, Layout::Contiguous, what, {.seed = 9, .plan = pin});
      }
}

// Phase groups: inputs one element into rows of an odd stride beside an aligned output (seed 6
// #131's b * gelu_tanh(a) over the halves of such a view): vectors along the inputs, the output
// written element by element; two aligned outputs of a misaligned input (the input element by
// element); a full reduction over a product of a misaligned slice and an aligned input.
TEST(GpuFlatIndex, PhaseGroups) {
  SKIP_WITHOUT_GPU();
  for (int64_t h : {4, 8, 333, 1000, 6144}) {
    const std::string H = std::to_string(h), W = std::to_string(2 * h + 3), E = std::to_string(2 * h + 1);
    const Fusion f = parse_fusion("fusion sw {\n  input xw: f16[B, " + W + "]\n  x = slice(xw, axis=1, start=1, end=" + E +
                                  ")\n  a = slice(x, axis=1, start=0, end=" + H + ")\n  b = slice(x, axis=1, start=" + H +
                                  ", end=" + std::to_string(2 * h) + ")\n  g = gelu_tanh(a)\n  y = mul(b, g)\n  output y\n}\n");
    for (int64_t bsz : {1, 3, 37}) {
      const std::string what = "swiglu of a slice B=" + std::to_string(bsz) + " H=" + H;
      const std::string launches = check_against_reference(f, {{bsz, 2 * h + 3}}, Layout::Contiguous, what);
      if (h >= 1000 && bsz > 1) EXPECT_NE(launches.find("phased"), std::string::npos) << what << ": " << launches;
    }
  }
  for (const char* t : {"f32", "f16", "bf16"}) {
    const Fusion two = parse_fusion(std::string("fusion two {\n  input x: ") + t + "[B, H]\n  e = exp(x)\n  n = neg(x)\n  output e\n  output n\n}\n");
    for (int64_t h : {5, 64, 333, 4096}) {
      const std::string H = std::to_string(h), W = std::to_string(h + 1);
      const Fusion red = parse_fusion(std::string("fusion red {\n  input xw: ") + t + "[B, " + W + "]\n  input y: " + t + "[B, " + H +
                                      "]\n  a = slice(xw, axis=1, start=1, end=" + W +
                                      ")\n  m = mul(a, y)\n  r = max(m, axes=[0, 1], keepdim=false)\n  output r\n}\n");
      for (int64_t bsz : {1, 3, 100})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
          const std::string what = std::string(t) + " B=" + std::to_string(bsz) + " H=" + std::to_string(h) + " layout " +
                                   std::to_string(static_cast<int>(l));
          check_against_reference(two, {{bsz, h}}, l, "two outputs " + what);
          check_against_reference(red, {{bsz, h + 1}, {bsz, h}}, l, "max of a product " + what);
        }
    }
  }
}

// Expanded (stride-0) inputs over rows that fill 2-D chunks badly (seed 6 #060 and #089): one
// row of R x C with every operand in vectors.
TEST(GpuFlatIndex, ExpandedInputsOverAlignedRows) {
  SKIP_WITHOUT_GPU();
  const Fusion f89 = parse_fusion(
      "fusion e89 {\n  input x0: f32[1, M, K]\n  input y1: f32[B, 1, K]\n  input y2: f32[B, 1, 1]\n  input y5: f32[1, M, 1]\n"
      "  x = expand(x0, shape=[B, M, K])\n  t4 = cast(x, dtype=f16)\n  t5 = cast(t4, dtype=f32)\n  t6 = maximum(t5, y1)\n"
      "  t7 = add(t6, y2)\n  t8 = constant(value=-3, dtype=f32)\n  t9 = mul(t7, t8)\n  t10 = neg(t9)\n  t11 = mul(t10, y5)\n"
      "  output t11\n}\n");
  const Fusion f60 = parse_fusion(
      "fusion e60 {\n  input x0: f16[1, M, K]\n  input y1: f16[1, M, K]\n  input m4: bool[B, 1, K]\n  x = expand(x0, shape=[B, M, K])\n"
      "  t3 = clamp(x, lo=-1.5, hi=2)\n  t4 = maximum(t3, y1)\n  t5 = clamp(t4, lo=-1.5, hi=2)\n  t6 = tanh(t5)\n  t7 = exp(t6)\n"
      "  t8 = constant(value=0, dtype=f16)\n  t9 = where(m4, t7, t8)\n  t10 = constant(value=1, dtype=f16)\n  t11 = mul(t5, t10)\n"
      "  output t9\n  output t11\n}\n");
  for (const Bindings& b : std::vector<Bindings>{{{"B", 64}, {"M", 256}, {"K", 768}}, {{"B", 32}, {"M", 512}, {"K", 512}},
                                                 {{"B", 3}, {"M", 7}, {"K", 64}}, {{"B", 5}, {"M", 1}, {"K", 8}}, {{"B", 2}, {"M", 3}, {"K", 333}}})
    for (Layout l : {Layout::Contiguous, Layout::Misaligned})
      for (const Fusion* f : {&f89, &f60}) {
        const std::string what = f->name() + sizes_text(b) + " layout " + std::to_string(static_cast<int>(l));
        const std::string launches = check_against_reference(*f, resolve_input_shapes(*f, {}, b), l, what);
        if (l == Layout::Contiguous && b.at("K") >= 512) EXPECT_NE(launches.find("one_row"), std::string::npos) << what << ": " << launches;
      }
}
