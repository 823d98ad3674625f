// A cat's pieces in one kernel (passes/cat_pieces.cpp): a cat whose pieces are element math
// over inputs becomes a where over windows of padded leaves, with the reference's results
// unchanged, and the pieces, the cat and what reads it segment into one pointwise kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/cat_pieces.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "solder/error.h"
#include "solder/executor.h"
#include "solder/reference.h"
#include "support/lowered_graphs.h"
#include "support/pad_programs.h"
#include "support/symbolic_cat_programs.h"

using namespace solder;
using namespace solder::testing;

namespace {

int count_ops(const Fusion& f, Op op) {
  int n = 0;
  for (const auto& node : f.nodes()) n += node.op == op;
  return n;
}

const char* kRope = R"(fusion rope {
  input x: f16[B, M, 128]
  input c: f16[M, 128]
  input s: f16[M, 128]
  a = slice(x, axis=2, start=64, end=128)
  n = neg(a)
  b = slice(x, axis=2, start=0, end=64)
  rot = cat(n, b, axis=2)
  xc = mul(x, c)
  rs = mul(rot, s)
  y = add(xc, rs)
  output y
}
)";

}  // namespace

TEST(CatPieces, RotateHalfIsOneKernel) {
  const Fusion f = parse_fusion(kRope);
  const SegmentedFusion sf = lower(f);
  EXPECT_EQ(count_ops(sf.fusion, Op::Cat), 0);
  EXPECT_EQ(count_ops(sf.fusion, Op::Pad), 2);
  EXPECT_EQ(count_ops(sf.fusion, Op::Window), 1);
  EXPECT_EQ(kernels(sf), 1) << describe_segments(sf);
  expect_same_results(f, {{3, 5, 128}, {5, 128}, {5, 128}}, 11, "rope");
  // Windows and pads print in the text format and read back to the same graph.
  EXPECT_EQ(parse_fusion(print_fusion(sf.fusion)).hash(), sf.fusion.hash()) << print_fusion(sf.fusion);
  // The kernel's vectors stay whole inside each piece (64 is a multiple of 8) and compile
  // without spills.
  Executor ex(f);
  const std::string text = ex.explain({{16, 512, 128}, {512, 128}, {512, 128}});
  EXPECT_NE(text.find("vec=8"), std::string::npos) << text;
  EXPECT_NE(text.find(" 0 bytes spill stores"), std::string::npos) << text;
}

// Pieces of unequal, odd lengths along a leading and the last axis, leaves that broadcast
// along the axis (kept as they are), a piece that is a plain view, three pieces, a cat that is
// itself an output: the reference agrees; vectors narrow to the pieces' bounds.
TEST(CatPieces, UnequalPiecesAndBroadcastLeaves) {
  const Fusion last = parse_fusion(R"(fusion three {
  input x: f32[B, 5]
  input y: f32[B, 16]
  input z: bf16[B, 3]
  input r: f32[B, 1]
  tx = tanh(x)
  my = mul(y, r)
  cz = cast(z, dtype=f32)
  k = cat(tx, my, cz, axis=1)
  e = exp(k)
  output e
  output k
}
)");
  const SegmentedFusion sf = lower(last);
  EXPECT_EQ(count_ops(sf.fusion, Op::Cat), 0);
  EXPECT_EQ(count_ops(sf.fusion, Op::Window), 2);
  EXPECT_EQ(count_ops(sf.fusion, Op::Pad), 3);  // x, y, z: r broadcasts along the axis
  EXPECT_EQ(kernels(sf), 1) << describe_segments(sf);
  expect_same_results(last, {{7, 5}, {7, 16}, {7, 3}, {7, 1}}, 11, "three pieces");
  Executor ex(last);
  const std::string text = ex.explain({{1000, 5}, {1000, 16}, {1000, 3}, {1000, 1}});
  // Bounds 5 and 21: the pieces read at their own phase (one element at a time before).
  EXPECT_NE(text.find("vec=4 threads=64 unroll=1 shift"), std::string::npos) << text;

  const Fusion lead = parse_fusion(R"(fusion lead {
  input x: f16[3, H]
  input y: f16[4, H]
  t = relu(x)
  k = cat(t, y, axis=0)
  o = add(k, k)
  output o
}
)");
  EXPECT_EQ(count_ops(lower(lead).fusion, Op::Cat), 0);
  expect_same_results(lead, {{3, 10}, {4, 10}}, 11, "leading axis");
}

// Pieces that are views of a constant (F.pad's fills, as the torch frontend lowers a pad) take
// the constant itself: not padded, and no kernel writes it to memory first.
TEST(CatPieces, FillPiecesAreTheConstant) {
  // Around a piece of constant size, and of symbolic size: x's pad, 3 + H + 5, is the cat's H+8
  // (sums of one meaning print alike; this one once did not, and the cat stayed copies).
  for (const auto& [t, width, sizes] : {std::tuple{"f16", "1000", std::vector<int64_t>{7, 1000}},
                                        std::tuple{"bf16", "H", std::vector<int64_t>{5, 37}}}) {
    const Fusion f = parse_fusion(std::string("fusion pad {\n  input x: ") + t + "[B, " + width +
                                  "]\n  c = constant(value=-1.5, dtype=" + t +
                                  ")\n  l = expand(c, shape=[B, 3])\n  r = expand(c, shape=[B, 5])\n"
                                  "  k = cat(l, x, r, axis=1)\n  e = exp(k)\n  output e\n}\n");
    const SegmentedFusion sf = lower(f);
    EXPECT_EQ(count_ops(sf.fusion, Op::Cat), 0) << print_fusion(sf.fusion);
    EXPECT_EQ(count_ops(sf.fusion, Op::Pad), 1) << "x's alone";
    EXPECT_EQ(kernels(sf), 1) << describe_segments(sf);
    expect_same_results(f, {sizes}, 11, std::string("fills around x of ") + width);
  }
}

// Pads of several dims (tests/support/pad_programs.h: F.pad of H and W as the torch frontend
// lowers it, a cat in a cat, pads by hand): one kernel that reads each input through a pad of a
// pad, each dim masked. F.pad of H and W was a kernel for the inner cat, copies for the outer,
// and a kernel for what reads it.
TEST(CatPieces, PadsOfSeveralDimsAreOneKernel) {
  for (const PadProgram& p : pad_programs()) {
    const Fusion f = parse_fusion(p.text);
    const SegmentedFusion sf = lower(f);
    EXPECT_EQ(count_ops(sf.fusion, Op::Cat), 0) << p.name << "\n" << print_fusion(sf.fusion);
    EXPECT_EQ(count_ops(sf.fusion, Op::Pad), p.pads) << p.name << "\n" << print_fusion(sf.fusion);
    EXPECT_EQ(kernels(sf), 1) << p.name << "\n" << describe_segments(sf);
    std::vector<std::vector<int64_t>> shapes;
    for (int v : f.inputs()) {  // odd sizes, a size-1 dim: N=2 C=1 H=5 W=7, B=6
      std::vector<int64_t> s;
      for (const Dim& d : f.value(v).shape) s.push_back(d.eval({{"N", 2}, {"C", 1}, {"H", 5}, {"W", 7}, {"B", 6}}));
      shapes.push_back(s);
    }
    expect_same_results(f, shapes, 5, p.name);
  }
}

// What stays a cat: pieces made by reductions (written by their kernel, then the cat copies
// the rest); pieces of symbolic sizes that only the cat reads, each element math (written in
// place by their kernel, which may be a transpose kernel); `solder explain` says why.
TEST(CatPieces, OtherCatsStay) {
  const Fusion casts = cat_cast("bf16", 1);
  EXPECT_EQ(count_ops(lower(casts).fusion, Op::Cat), 1);
  const std::string in_place = Executor(casts).explain({{64, 100}, {64, 100}});
  EXPECT_NE(in_place.find("0 copies, 2 pieces written in place"), std::string::npos) << in_place;
  EXPECT_NE(in_place.find("why a cat (not read as pieces in one kernel): pieces of symbolic sizes that only the cat reads"),
            std::string::npos) << in_place;
  const Fusion reduced = parse_fusion(R"(fusion red {
  input x: f32[B, H]
  m = sum(x, axes=[1], keepdim=true)
  k = cat(m, x, axis=1)
  output k
}
)");
  EXPECT_EQ(count_ops(lower(reduced).fusion, Op::Cat), 1);
  const std::string text = Executor(reduced).explain({{4, 100}});
  EXPECT_NE(text.find("why a cat (not read as pieces in one kernel): piece 0 reads m, made by sum"), std::string::npos) << text;
  // A piece read through a permute that moves the innermost dim (bench/programs/
  // cat_tanh_relu_T_f32.fusion, seed 6 #119): the transpose template writes it in place.
  const Fusion transposed = parse_fusion(R"(fusion tr {
  input a: f32[B, H]
  input bt: f32[H, B]
  b = permute(bt, axes=[1, 0])
  ta = tanh(a)
  rb = relu(b)
  k = cat(ta, rb, axis=0)
  output k
}
)");
  EXPECT_EQ(count_ops(lower(transposed).fusion, Op::Cat), 1);
  EXPECT_NE(cat_stays_why(transposed, transposed.nodes()[transposed.value(transposed.find("k")).producer]).find("piece 1 reads b, a permute"),
            std::string::npos);
}

// Cats of pieces of symbolic sizes (issue 26; seed 6 #031, seed 7 #106): the pieces, the cat
// and its readers are one kernel whose pads and windows take their bounds from the launch's
// sizes. The reference of the lowered graph agrees bit for bit at sizes where pieces are odd,
// one element or empty, and the graph prints and parses back to itself.
TEST(CatPieces, SymbolicPiecesAreOneKernel) {
  using Shapes = std::vector<std::vector<int64_t>>;
  struct Case {
    std::string what;
    Fusion f;
    std::vector<Shapes> shapes;
  };
  std::vector<Case> cases;
  for (const char* dt : {"f32", "bf16"}) {
    Case c{std::string("rope ") + dt, rope_sym(dt, 64), {}};
    for (int64_t k : {128, 130, 129, 64, 65, 40, 1}) c.shapes.push_back({{2, 3, k}, {3, k}, {3, k}});
    cases.push_back(c);
  }
  for (int axis : {0, 1}) {
    Case c{"cat_cast axis " + std::to_string(axis), cat_cast("f32", axis), {}};
    for (auto [b, h] : std::vector<std::pair<int64_t, int64_t>>{{3, 5}, {1, 1}, {4, 64}, {7, 33}}) c.shapes.push_back({{b, h}, {b, h}});
    cases.push_back(c);
  }
  {
    Case c{"three pieces", three_sym(), {}};
    for (auto [h, w] : std::vector<std::pair<int64_t, int64_t>>{{5, 16}, {1, 1}, {8, 8}, {33, 4}})
      c.shapes.push_back({{7, h}, {7, w}, {7, 3}, {7, 1}});
    cases.push_back(c);
  }
  cases.push_back({"leading axis", lead_sym(), {{{3, 10}, {4, 10}}, {{1, 1}, {1, 1}}, {{5, 33}, {2, 33}}}});
  cases.push_back({"strided halves", swap_strided(), {{{3, 1}}, {{3, 2}}, {{3, 7}}, {{2, 64}}}});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const SegmentedFusion sf = lower(c.f);
    EXPECT_EQ(count_ops(sf.fusion, Op::Cat), 0) << print_fusion(sf.fusion);
    EXPECT_EQ(kernels(sf), 1) << describe_segments(sf);
    for (const Shapes& sh : c.shapes) expect_same_results(c.f, sh, 11, c.what);
    EXPECT_EQ(parse_fusion(print_fusion(sf.fusion)).hash(), sf.fusion.hash()) << print_fusion(sf.fusion);
  }
}

// The symbolic bounds are kernel parameters: one compiled kernel serves every size whose bounds
// its vectors fit, and the vector width follows the bounds' values at each launch (a bound that
// is not a multiple of the widest vector narrows it; odd halves read one element at a time).
// Every kernel compiles for sm_90a without spills.
TEST(CatPieces, SymbolicBoundsAreRuntimeParameters) {
  const Fusion f = rope_sym("f32", 256);
  Executor ex(f);
  auto kernel_params = [&](int64_t k, std::vector<KernelSourceInfo>* src = nullptr) {
    std::string params;
    int n = 0;
    for (const LaunchRecord& r : ex.compile_for({{4, 10, k}, {10, k}, {10, k}}, src)) {
      if (r.category == "view") continue;
      ++n;
      params = r.params;
      EXPECT_EQ(r.spill_bytes, 0) << "K=" << k << ": " << r.params;
    }
    EXPECT_EQ(n, 1) << "K=" << k;
    return params;
  };
  std::vector<KernelSourceInfo> sources;
  const std::string p512 = kernel_params(512, &sources);
  EXPECT_NE(p512.find("vec=4"), std::string::npos);
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_NE(sources[0].source.find("i64 bound[2];"), std::string::npos) << sources[0].source;
  // The bound compared as a parameter (32-bit: the kernel is index32, see window_parts).
  EXPECT_NE(sources[0].source.find("< (int)(p.bound["), std::string::npos) << sources[0].source;
  // A new size of the same plan is the same kernel: its source names no size (compared as
  // sources: a compile count depends on what the disk cache holds from earlier runs). At K = 260
  // (65 vectors a row) the evenly filled passes take another thread count (flat_plans'
  // even_pass_threads), a kernel of its own that still names no size.
  std::vector<KernelSourceInfo> s1024, s260;
  EXPECT_EQ(kernel_params(1024, &s1024), p512);
  ASSERT_EQ(s1024.size(), 1u);
  EXPECT_EQ(s1024[0].source, sources[0].source) << "a new size of the same plan changed the kernel";
  const std::string p260 = kernel_params(260, &s260);
  EXPECT_NE(p260.find("vec=4"), std::string::npos);
  ASSERT_EQ(s260.size(), 1u);
  EXPECT_EQ(s260[0].source.find("260"), std::string::npos) << s260[0].source;
  EXPECT_EQ(p260 == p512, s260[0].source == sources[0].source) << p260;
  // Pieces of 258 and 256, and of 257 and 256 (aligned vectors of 2 and 1 before): the pieces
  // read at their own phase (shift), the output in vectors of 4 and 2.
  const std::string k514 = kernel_params(514), k513 = kernel_params(513);
  EXPECT_NE(k514.find("vec=4 threads=224 unroll=1 shift"), std::string::npos) << k514;  // passes evenly filled
  EXPECT_NE(k513.find("vec=2 threads=256 unroll=1 shift"), std::string::npos) << k513;
  EXPECT_NE(kernel_params(300).find("vec=4"), std::string::npos);   // 44 and 256
  // Constant bounds stay literals: the kernel's parameters have no bounds.
  std::vector<KernelSourceInfo> constant;
  Executor(parse_fusion(kRope)).compile_for({{2, 3, 128}, {3, 128}, {3, 128}}, &constant);
  ASSERT_FALSE(constant.empty());
  EXPECT_EQ(constant[0].source.find("bound["), std::string::npos) << constant[0].source;
  // seed 7 #106's cat along the rows of 16384 x 128 f32: one kernel in vectors of 4.
  for (const LaunchRecord& r : Executor(cat_cast("f32", 1)).compile_for({{16384, 128}, {16384, 128}}))
    if (r.category != "view") EXPECT_NE(r.params.find("vec=4"), std::string::npos) << r.name << " " << r.params;
}

// The GPU tier's cases (tests/gpu/symbolic_cat_test.cpp) plan and compile for sm_90a without
// spills, contiguous and with the last two dims transposed in memory, and read the cat as
// pieces (no copy).
TEST(CatPieces, SymbolicPiecesCompileWithoutSpills) {
  using Shapes = std::vector<std::vector<int64_t>>;
  std::vector<std::pair<Fusion, Shapes>> cases;
  for (const char* dt : {"f32", "bf16", "f16"}) {
    for (int64_t k : {128, 130, 129, 65, 40, 1}) cases.push_back({rope_sym(dt, 64), {{16, 64, k}, {64, k}, {64, k}}});
    for (int axis : {0, 1})
      for (auto [b, h] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {37, 33}, {5, 4096}, {3, 130}})
        cases.push_back({cat_cast(dt, axis), {{b, h}, {b, h}}});
  }
  for (auto [h, w] : std::vector<std::pair<int64_t, int64_t>>{{5, 16}, {1, 1}, {33, 4}, {1024, 512}})
    cases.push_back({three_sym(), {{37, h}, {37, w}, {37, 3}, {37, 1}}});
  cases.push_back({lead_sym(), {{64, 4096}, {100, 4096}}});
  cases.push_back({lead_sym(), {{5, 33}, {2, 33}}});
  for (int64_t h : {1, 7, 4097}) cases.push_back({swap_strided(), {{3, h}}});
  for (const auto& [f, shapes] : cases) {
    for (bool transposed : {false, true}) {
      Shapes strides;
      for (const auto& sh : shapes) {
        std::vector<int64_t> st(sh.size(), 1);
        int64_t acc = 1;
        for (int d = static_cast<int>(sh.size()) - 1; d >= 0; --d) st[d] = acc, acc *= sh[d];
        if (transposed && sh.size() >= 2) {
          const size_t r = sh.size();
          st[r - 2] = 1;
          st[r - 1] = sh[r - 2];
        }
        strides.push_back(st);
      }
      std::string what = f.name() + (transposed ? " transposed" : "");
      for (const auto& sh : shapes) what += " " + std::to_string(sh.back());
      SCOPED_TRACE(what);
      const std::string text = Executor(f).explain(shapes, strides);
      for (size_t at = text.find(" cat: "); at != std::string::npos; at = text.find(" cat: ", at + 1))
        EXPECT_EQ(text.compare(at, 15, " cat: 0 copies,"), 0) << text;  // no cat copies
      size_t kernels_seen = 0;
      for (size_t at = text.find("ptxas:"); at != std::string::npos; at = text.find("ptxas:", at + 1), ++kernels_seen)
        EXPECT_NE(text.substr(at, text.find('\n', at) - at).find(" 0 bytes spill stores"), std::string::npos) << text;
      EXPECT_GE(kernels_seen, 1u) << text;
    }
  }
}

// Symbolic bounds are checked when sizes are bound: a pad of a negative size or a window past
// its dim is an error naming it, before anything runs.
TEST(CatPieces, SymbolicBoundsCheckedWhenBound) {
  const Fusion pad = parse_fusion(R"(fusion p {
  input x: f32[B, H]
  q = pad(x, axis=1, start=H+-10, end=W)
  e = exp(q)
  output e
}
)");
  EXPECT_EQ(print_fusion(parse_fusion(print_fusion(pad))), print_fusion(pad));
  try {
    run_reference(pad, make_random_inputs(pad, {{2, 5}}, 3));
    ADD_FAILURE() << "a pad of -5 elements was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pad"), std::string::npos) << e.what();
  }
  const Fusion window = parse_fusion(R"(fusion w {
  input x: f32[B, H]
  input y: f32[B, W]
  k = window(shape=[B, H], axis=1, start=0, end=W)
  z = where(k, x, x)
  output z
}
)");
  try {
    run_reference(window, make_random_inputs(window, {{2, 5}, {2, 6}}, 3));
    ADD_FAILURE() << "a window past its dim was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("window"), std::string::npos) << e.what();
  }
  // In range, the reference masks as the constant form does.
  const auto out = run_reference(window, make_random_inputs(window, {{2, 5}, {2, 3}}, 3));
  EXPECT_EQ(out.size(), 1u);
}

// A pad written by hand reads zeros outside its source; as an output it is refused by name.
TEST(CatPieces, PadsInTheTextFormat) {
  const Fusion f = parse_fusion(R"(fusion p {
  input x: f32[B, 4]
  q = pad(x, axis=1, start=2, end=3)
  e = exp(q)
  output e
}
)");
  const std::vector<HostTensor> in = make_random_inputs(f, {{2, 4}}, 3);
  const auto out = run_reference(f, in);
  ASSERT_EQ(out[0].numel(), 18);
  EXPECT_EQ(out[0].get(0), 1.0);                         // exp(0) before x
  EXPECT_FLOAT_EQ(out[0].get(2), std::exp(in[0].get(0)));  // x[0, 0]
  EXPECT_EQ(out[0].get(8), 1.0);                         // exp(0) after x
  EXPECT_EQ(kernels(lower(f)), 1);
  const Fusion bad = parse_fusion("fusion p {\n  input x: f32[B, 4]\n  q = pad(x, axis=1, start=2, end=3)\n  output q\n}\n");
  try {
    lower(bad);
    ADD_FAILURE() << "a pad as an output was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pad"), std::string::npos) << e.what();
  }
}

TEST(CatPieces, PiecesOfAMatmulsPermutedResult) {
  // RoPE as a model's graph has it: the query projection's result, split into heads and
  // permuted, rotated half by half. The matmul writes memory, so its pieces are read padded in
  // place like an input's: one kernel after the matmul, no cat copies (Llama's layer had four).
  const Fusion f = parse_fusion(R"(fusion rope_q {
  input x: f32[10, 16]
  input w: f32[16, 16]
  input c: f32[5, 8]
  input s: f32[5, 8]
  q = matmul(x, w)
  q4 = reshape(q, shape=[2, 5, 2, 8])
  qt = permute(q4, axes=[0, 2, 1, 3])
  a = slice(qt, axis=3, start=4, end=8)
  n = neg(a)
  b = slice(qt, axis=3, start=0, end=4)
  rot = cat(n, b, axis=3)
  qc = mul(qt, c)
  rs = mul(rot, s)
  y = add(qc, rs)
  output y
}
)");
  const SegmentedFusion sf = lower(f);
  EXPECT_EQ(count_ops(sf.fusion, Op::Cat), 0);
  EXPECT_EQ(kernels(sf), 1) << describe_segments(sf);
  expect_same_results(f, {{10, 16}, {16, 16}, {5, 8}, {5, 8}}, 11, "rope of a matmul");
}
