// The flat template's addressing of broadcast and sliced operands: a General operand's row part
// computed once per row apart from its columns (a [1, M, 1] operand read once per row, a
// [B, 1, K] one as vectors from its row's base: `row/dims`, `full/dims`), 32-bit divisions where
// every offset fits (index32), and full reductions over a slice of a wider tensor read as rows
// at their row stride, phase-shifted where the slice starts off alignment. Which plan the
// schedulers choose, and every kernel compiling for sm_90a without spills for f32/f16/bf16 at
// odd sizes (C = 4097, 333, 1), size-1 dims, padded rows and misaligned inputs. The GPU tier
// (tests/gpu/flat_index_test.cpp) runs them against the reference.
#include <gtest/gtest.h>

#include "support/flat_programs.h"
#include "support/first_plan.h"
#include "support/row_unroll_programs.h"
#include "support/shift_programs.h"

#include "pipeline/compile_kernel.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "runtime/device_info.h"
#include "runtime/kernel_cache.h"
#include "schedule/launch_grid.h"
#include "schedule/scheduler.h"
#include "solder/error.h"
#include "solder/executor.h"

using namespace solder;
using namespace solder::testing;

namespace {

Fusion full_reduction(DType t, bool use_mean) {
  Fusion f("slice_reduce");
  Tensor x = f.input("x", t, dims({"B", "H"}));
  f.output(use_mean ? mean(cast(x, DType::F32)) : amax(x));
  return f;
}

std::string operand_text(const Scheduled& c, const Fusion&) { return c.plan.key(); }

std::string access_of(const Scheduled& c, int operand) {
  return access_text(c.plan.operands.at(operand));
}

}  // namespace

// A [1, M, 1] operand of [B, M] rows is read once per row (row/dims), not through the per-element
// division of every kernel dim; the divisions of its row index are 32-bit where offsets fit.
TEST(FlatIndex, BroadcastAlongAMiddleDimIsReadOncePerRow) {
  const Fusion f = masked(DType::BF16, {"1", "M", "1"});
  const Scheduled c = schedule(f, {{"B", 128}, {"M", 100}, {"K", 4097}});
  EXPECT_EQ(c.scheduler, "pointwise");
  EXPECT_EQ(c.facts.R, 12800);
  EXPECT_EQ(c.facts.C, 4097);
  EXPECT_EQ(access_of(c, 0), "full");
  EXPECT_EQ(access_of(c, 1), "row/dims") << operand_text(c, f);
  EXPECT_TRUE(c.plan.params.index32) << operand_text(c, f);
  EXPECT_EQ(c.plan.params.col_vec, 1) << "rows of 4097 are phase-shifted: " << operand_text(c, f);
  EXPECT_TRUE(c.plan.problems().empty());
  // Past 2^31 elements of offset, 64-bit divisions.
  const Scheduled big = schedule(f, {{"B", 1024}, {"M", 1000}, {"K", 4097}});
  EXPECT_EQ(access_of(big, 1), "row/dims");
  EXPECT_FALSE(big.plan.params.index32);
}

// [B, 1, K] beside [B, M, K]: its rows do not collapse to one stride, its columns are unit-stride:
// 16-byte vectors from its row's base (full/dims); the [K] weight stays a column operand.
TEST(FlatIndex, BroadcastRowsWithUnitColumnsLoadAsVectors) {
  Fusion f("bcast_rows");
  Tensor x = f.input("x", DType::F16, dims({"B", "M", "K"}));
  Tensor a = f.input("a", DType::F16, dims({"B", "1", "K"}));
  Tensor w = f.input("w", DType::F16, dims({"1", "1", "K"}));
  f.output(x * a + w);
  const Scheduled c = schedule(f, {{"B", 128}, {"M", 512}, {"K", 768}});
  EXPECT_EQ(c.scheduler, "pointwise");
  EXPECT_EQ(access_of(c, 1), "full/dims") << operand_text(c, f);
  EXPECT_EQ(access_of(c, 2), "col");
  EXPECT_EQ(c.plan.params.vec, 8) << operand_text(c, f);
  EXPECT_EQ(c.plan.params.col_vec, 0);
  // Rows of 770: [B, 1, K]'s row phase differs from x's (no phase shift), so the 2-D grid would
  // take vectors of 2; one row of R x C keeps x and the output in vectors of 8 and reads a and w
  // element by element.
  const Scheduled odd = schedule(f, {{"B", 16}, {"M", 8}, {"K", 770}});
  EXPECT_EQ(access_of(odd, 1), "full/dims");
  EXPECT_TRUE(odd.plan.params.one_row) << operand_text(odd, f);
  EXPECT_EQ(odd.plan.params.vec, 8) << operand_text(odd, f);
  EXPECT_EQ(odd.plan.params.col_vec, 1) << operand_text(odd, f);
  EXPECT_FALSE(odd.plan.params.interleave) << operand_text(odd, f);
  // A vector across one row end runs unrolled, each element taking its row's or the next row's
  // row part of a (seed 27 #153: the serial loop kept most warps waiting); across several row
  // ends or the domain's end, element by element as before. Values: gpu_flat_index_test and the
  // CPU kernel simulator's onerow_ cases.
  const Scheduled built = schedule(f, {{"B", 16}, {"M", 8}, {"K", 770}}, {}, true);
  const std::string& src = built.prepared.source.source;
  EXPECT_NE(src.find("} else if (CX >= VEC && i0 + VEC <= N) {"), std::string::npos) << src;
  EXPECT_NE(src.find("const bool nx = col0 + j >= CX;"), std::string::npos) << src;
  EXPECT_NE(src.find("while (ce >= CX) ce -= CX, ++re;"), std::string::npos) << src;
  EXPECT_FALSE(built.prepared.spills) << built.prepared.plan.params.str();
}

// Operands streamed element by element outnumbering the vector ones ([B, 1, K] and [1, M, K]
// beside the output, rows of 770, M x K not a multiple of 8): a warp's lanes take consecutive
// elements (interleave), so each load touches the lines of 32 elements, not of 32 x VEC.
TEST(FlatIndex, StreamedElementsInterleave) {
  Fusion f("streamed");
  Tensor a = f.input("a", DType::F16, dims({"B", "1", "K"}));
  Tensor b = f.input("b", DType::F16, dims({"1", "M", "K"}));
  f.output(a * b);
  const Scheduled c = schedule(f, {{"B", 16}, {"M", 7}, {"K", 770}}, {}, true);
  EXPECT_EQ(access_of(c, 0), "full/dims") << operand_text(c, f);
  EXPECT_EQ(access_of(c, 1), "full/dims") << operand_text(c, f);
  EXPECT_TRUE(c.plan.params.one_row && c.plan.params.interleave) << operand_text(c, f);
  const std::string& src = c.prepared.source.source;
  EXPECT_NE(src.find("(threadIdx.x & ~31u) * VEC + (threadIdx.x & 31u)"), std::string::npos) << src;
  EXPECT_NE(src.find("} else if (CX > 32 * (VEC - 1) && i0 + 32 * (VEC - 1) < N) {"), std::string::npos) << src;
  EXPECT_NE(src.find("const bool nx = col0 + 32 * j >= CX;"), std::string::npos) << src;
  EXPECT_NE(src.find("while (ce >= CX) ce -= CX, ++re;"), std::string::npos) << src;
  EXPECT_EQ(src.substr(src.find("extern \"C\"")).find("st_vec<"), std::string::npos) << "no vector stores: " << src;
  EXPECT_FALSE(c.prepared.spills) << c.prepared.plan.params.str();
}

// Seed 37 #138 (f16 rows of 333 beside [1, M, K] and [M, K] operands, M x K a multiple of 8, and
// [B, 1, 1], [B, M, 1] row operands): the broadcast operands lie in runs at the flat index
// (full/dims/seg), so one row of R x C loads every operand as vectors and a chunk across one row
// end takes the vector path too, its elements' row values chosen by their rows (279.7 -> 138.8
// us on the H200, perf-notes 2026-12-03 11:10). M x K not a multiple of 8: elements again. A pin
// that leaves one_row drops the runs. Values: gpu_row_unroll_test's OneRowVectorsAcrossRowEnds
// and the CPU kernel simulator's onerow_*_div cases.
TEST(FlatIndex, BroadcastRunsLoadAsVectorsAcrossRowEnds) {
  const Fusion f = div_rows(DType::F16);
  const Scheduled c = schedule(f, {{"B", 128}, {"M", 1000}, {"K", 333}}, {}, true);
  EXPECT_TRUE(c.plan.params.one_row && c.plan.params.col_vec == 1 && !c.plan.params.interleave) << operand_text(c, f);
  EXPECT_EQ(c.plan.params.vec, 8) << operand_text(c, f);
  EXPECT_EQ(access_of(c, 3), "full/dims/seg") << operand_text(c, f);
  EXPECT_EQ(access_of(c, 4), "full/dims/seg") << operand_text(c, f);
  const std::string& src = c.prepared.source.source;
  EXPECT_NE(src.find("const bool cross = col0 + VEC > CX;"), std::string::npos) << src;
  EXPECT_NE(src.find("const bool nx = col0 + j >= CX;"), std::string::npos) << src;
  EXPECT_EQ(src.find("} else if (CX >= VEC && i0 + VEC <= N) {"), std::string::npos) << "no element path across one row end";
  EXPECT_FALSE(c.prepared.spills) << c.prepared.plan.params.str();
  EXPECT_NO_THROW(launch_grid(c.plan, c.facts, h100_profile(), 8, 0));
  const Scheduled odd = schedule(f, {{"B", 128}, {"M", 999}, {"K", 333}});
  EXPECT_EQ(access_of(odd, 3), "full/dims") << operand_text(odd, f);
  // The plan at facts where [1, M, K]'s vectors would straddle its rows: refused at launch.
  EXPECT_THROW(launch_grid(c.plan, odd.facts, h100_profile(), 8, 0), Error);
}

// 2-D pointwise rows that fit one pass of 256 threads take blocks as wide as their vectors
// (even_pass_threads; seed 8 #142: f32 rows of 333 phased in vectors of 4, 84 a row; #127: f16
// rows of 1024 in vectors of 8); rows of several passes fill them evenly (1025 phased vectors
// of 4: 5 passes of 205 at 224 threads, not a fifth pass of 1 at 256).
TEST(FlatIndex, BlocksAsWideAsShortRows) {
  Fusion f("sub_mul_add");
  Tensor x = f.input("x", DType::F32, dims({"B", "M", "K"}));
  Tensor y0 = f.input("y0", DType::F32, dims({"1", "M", "1"}));
  Tensor y1 = f.input("y1", DType::F32, dims({"1", "M", "K"}));
  Tensor y2 = f.input("y2", DType::F32, dims({"1", "1", "K"}));
  f.output((y0 - x) * y1 + y2);
  const Scheduled a = schedule(f, {{"B", 128}, {"M", 512}, {"K", 333}});
  EXPECT_FALSE(a.plan.params.one_row) << operand_text(a, f);
  EXPECT_EQ(a.plan.params.col_vec, 1) << operand_text(a, f);
  EXPECT_EQ(a.plan.params.vec, 4) << operand_text(a, f);
  EXPECT_EQ(a.plan.params.threads, 96) << operand_text(a, f);
  const Scheduled b = schedule(f, {{"B", 4}, {"M", 64}, {"K", 4097}});
  EXPECT_EQ(b.plan.params.threads, 224) << operand_text(b, f);

  Fusion g("div_rows");
  Tensor gx = g.input("x", DType::F16, dims({"B", "M", "K"}));
  Tensor gy = g.input("y4", DType::F16, dims({"B", "1", "K"}));
  g.output(gx / (abs(gy) + 1.0));
  const Scheduled c = schedule(g, {{"B", 64}, {"M", 128}, {"K", 1024}});
  EXPECT_EQ(c.plan.params.vec, 8) << operand_text(c, g);
  EXPECT_EQ(c.plan.params.threads, 128) << operand_text(c, g);
  // Rows of 40 vectors: no fewer than 64 threads (32 resident blocks fill an SM's 2048).
  const Scheduled d = schedule(g, {{"B", 64}, {"M", 128}, {"K", 320}});
  if (!d.plan.params.one_row) EXPECT_EQ(d.plan.params.threads, 64) << operand_text(d, g);
}

// Which form takes rows that fit 256-thread chunks badly (the model: thread slots that hold
// elements, in the widest vectors): one row of R x C where the 2-D grid leaves a fifth of its
// lanes idle and nothing is read element by element (seed 3 #127); the 2-D grid, phase-shifted
// at full width, where weights would be read element by element (seed 4 #058), and where rows
// are vec-aligned (seed 4 #133: rows of 512 with f32 results; not measured against one row).
TEST(FlatIndex, RowsThatFitChunksBadly) {
  const Scheduled a = schedule(masked(DType::BF16, {"1", "M", "1"}), {{"B", 128}, {"M", 100}, {"K", 4097}});
  EXPECT_TRUE(a.plan.params.one_row) << operand_text(a, {});
  EXPECT_EQ(a.plan.params.threads, 256);
  const Grid ga = launch_grid(a.plan, a.facts, h100_profile(), 8, 0);
  EXPECT_EQ(ga.x, (128u * 100 * 4097 + 1023) / 1024);
  EXPECT_EQ(ga.y, 1u);

  Fusion f("cols_and_rows");
  Tensor x = f.input("x", DType::F16, dims({"B", "M", "K"}));
  Tensor w0 = f.input("w0", DType::F16, dims({"K"}));
  Tensor w1 = f.input("w1", DType::F16, dims({"K"}));
  Tensor m0 = f.input("m0", DType::F16, dims({"1", "M", "1"}));
  Tensor m1 = f.input("m1", DType::F16, dims({"1", "M", "1"}));
  f.output((x + w0) * m0 - w1 * m1);
  const Scheduled b = schedule(f, {{"B", 4}, {"M", 1000}, {"K", 4097}});
  EXPECT_FALSE(b.plan.params.one_row) << operand_text(b, f);
  EXPECT_EQ(b.plan.params.col_vec, 1) << operand_text(b, f);
  EXPECT_EQ(b.plan.params.threads, 192) << operand_text(b, f);  // 513 vectors: 3 passes of 171

  const Scheduled c = schedule(masked(DType::F16, {"1", "M", "1"}), {{"B", 64}, {"M", 1000}, {"K", 512}});
  EXPECT_FALSE(c.plan.params.one_row) << operand_text(c, {});
  // A row of 128 vectors in one pass: a block as wide as the row (even_pass_threads).
  EXPECT_EQ(c.plan.params.threads, 128) << operand_text(c, {});
  const Grid gc = launch_grid(c.plan, c.facts, h100_profile(), 32, 0);
  EXPECT_EQ(gc.x, 1u);

  // Rows of one element (K = 1 beside a [1, M, 1] operand): no operand loads vectors, and the
  // 2-D grid would give each row of one element a block; one row, an element per thread.
  const Scheduled d = schedule(masked(DType::F32, {"1", "M", "1"}), {{"B", 64}, {"M", 1000}, {"K", 1}});
  EXPECT_TRUE(d.plan.params.one_row) << operand_text(d, {});
  EXPECT_EQ(d.plan.params.vec, 1);
  EXPECT_EQ(d.plan.params.col_vec, 0);

  // A one_row plan pinned where an operand is not dense (rows padded), or where its rows are
  // not vec-aligned but the plan says they are: refused at launch, never misaddressed.
  const Scheduled padded = schedule(masked(DType::BF16, {"1", "M", "1"}), {{"B", 128}, {"M", 100}, {"K", 4097}}, {{0, {3, 0}}});
  EXPECT_FALSE(padded.plan.params.one_row) << operand_text(padded, {});
  EXPECT_THROW(launch_grid(a.plan, padded.facts, h100_profile(), 8, 0), Error);
  KernelPlan aligned = a.plan;
  aligned.params.col_vec = 0;
  EXPECT_THROW(launch_grid(aligned, a.facts, h100_profile(), 8, 0), Error);
}

// Every axis broadcast at once: each operand's class, and the phase-shifted rows of C = 4097
// taking [1, M, K] with the row-varying operands (its row strides agree with x's mod 8).
TEST(FlatIndex, BroadcastsAlongEveryAxis) {
  const Fusion f = every_axis(DType::BF16);
  const Scheduled c = schedule(f, {{"B", 32}, {"M", 128}, {"K", 4097}});
  EXPECT_EQ(c.scheduler, "pointwise");
  EXPECT_EQ(access_of(c, 0), "full");
  EXPECT_EQ(access_of(c, 1), "row/dims");
  EXPECT_EQ(access_of(c, 2), "full/dims/seg") << "[1, M, K]: in runs at the flat index (M x K a multiple of 8)";
  EXPECT_EQ(access_of(c, 3), "full/dims") << "[B, 1, K]: a row's K elements, then the next B's";
  EXPECT_EQ(access_of(c, 4), "col");
  EXPECT_EQ(c.plan.params.col_vec, 1) << operand_text(c, f);
  EXPECT_EQ(c.plan.params.vec, 8) << operand_text(c, f);
  // [B, 1, K]'s rows are at other phases than x's, so this plan without one_row (a pin) would
  // load misaligned vectors: refused at launch.
  EXPECT_TRUE(c.plan.params.one_row) << operand_text(c, f);
  KernelPlan two_d = c.plan;
  two_d.params.one_row = two_d.params.interleave = false;
  EXPECT_THROW(launch_grid(two_d, c.facts, h100_profile(), 8, 0), Error);
  EXPECT_NO_THROW(launch_grid(c.plan, c.facts, h100_profile(), 8, 0));
}

// Full reductions of a slice of a wider tensor (rows of H at a row stride of H + pad, starting
// one element off alignment): rows of H read as vectors, phase-shifted; the resident wave spread
// over the rows (not gridDim.y = 1 with a handful of column blocks).
TEST(FlatIndex, FullReductionsOfSlicesReadRows) {
  for (bool use_mean : {false, true}) {
    const DType t = use_mean ? DType::F32 : DType::BF16;
    const Fusion f = full_reduction(t, use_mean);
    const Scheduled c = schedule(f, {{"B", 2048}, {"H", 16384}}, {{0, {3, 1}}});
    SCOPED_TRACE(use_mean ? "mean f32" : "amax bf16");
    EXPECT_EQ(c.scheduler, "full_reduction");
    EXPECT_EQ(c.shape.split, 1);
    EXPECT_EQ(c.facts.R, 2048);
    EXPECT_EQ(c.facts.C, 16384);
    EXPECT_EQ(access_of(c, 0), "full");
    EXPECT_EQ(c.plan.params.col_vec, 1) << operand_text(c, f);
    EXPECT_EQ(c.plan.params.vec, use_mean ? 4 : 8);
    const Grid g = launch_grid(c.plan, c.facts, h100_profile(), 8, 0);
    EXPECT_GT(g.y, 1u);
    EXPECT_LE(int64_t{g.x} * g.y, int64_t{h100_profile().sm_count} * 8);
    if (use_mean) {  // the mean divides by every element of the slice, not by a row's
      const Scheduled compiled = schedule(f, {{"B", 2048}, {"H", 16384}}, {{0, {3, 1}}}, true);
      EXPECT_NE(compiled.prepared.source.source.find("/ (float)(R * C))"), std::string::npos);
    }
    // Contiguous: one row, as before (no phase, one dim of columns).
    const Scheduled dense = schedule(f, {{"B", 2048}, {"H", 16384}});
    EXPECT_EQ(dense.shape.split, 0);
    EXPECT_EQ(dense.plan.params.col_vec, 0);
  }
}

TEST(FlatIndex, PlansPrintParseAndValidate) {
  const Scheduled c = schedule(masked(DType::F16, {"1", "M", "1"}), {{"B", 64}, {"M", 1000}, {"K", 512}});
  EXPECT_NE(c.plan.key().find(":row/dims,"), std::string::npos) << c.plan.key();
  EXPECT_EQ(parse_params(c.plan.params.str()), c.plan.params);
  KernelPlan inner = c.plan;
  inner.shape.category = KernelCategory::Inner;
  EXPECT_FALSE(inner.problems().empty()) << "rows by dim are flat plans' only";
}

// Every kernel of these forms: ptxas fits it without spills (f32/f16/bf16; C = 4097, 333, 1;
// size-1 dims; padded rows; misaligned inputs).
TEST(FlatIndex, CompileWithoutSpills) {
  struct Case {
    std::string what;
    Fusion f;
    Bindings sizes;
    std::map<int, InputLayout> layouts;
  };
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    const std::string tn(dtype_name(t));
    std::vector<Case> cases;
    for (const Bindings& b : std::vector<Bindings>{{{"B", 8}, {"M", 100}, {"K", 4097}},
                                                   {{"B", 3}, {"M", 7}, {"K", 333}},
                                                   {{"B", 5}, {"M", 9}, {"K", 1}},
                                                   {{"B", 1}, {"M", 1000}, {"K", 64}}}) {
      cases.push_back({tn + " masked [1,M,1]", masked(t, {"1", "M", "1"}), b, {}});
      cases.push_back({tn + " masked [B,1,1]", masked(t, {"B", "1", "1"}), b, {{1, {0, 1}}}});
      cases.push_back({tn + " every axis", every_axis(t), b, {}});
      cases.push_back({tn + " every axis, padded and misaligned", every_axis(t), b, {{0, {3, 1}}, {2, {2, 0}}, {3, {0, 3}}}});
    }
    cases.push_back({tn + " amax of a slice", full_reduction(t, false), {{"B", 37}, {"H", 4097}}, {{0, {3, 1}}}});
    cases.push_back({tn + " mean of a slice", full_reduction(t, true), {{"B", 129}, {"H", 333}}, {{0, {5, 0}}}});
    for (Case& cs : cases) {
      SCOPED_TRACE(cs.what);
      const Scheduled c = schedule(cs.f, cs.sizes, cs.layouts, true);
      const PreparedKernel& pk = c.prepared;
      EXPECT_FALSE(pk.spills) << pk.plan.params.str();
      EXPECT_EQ(pk.compiled->ptxas.spill_store_bytes, 0) << pk.plan.params.str();
      EXPECT_TRUE(pk.rejected.empty()) << pk.rejected.front();
    }
  }
}

// Rows of 64 under a permuted view (attention's q heads), with a cat's windows: the 2-D plan
// would keep 8 of each block's 256 lanes busy, so the rows are taken as one row of R x C, every
// operand still in vectors (the pieces' bounds are multiples of vec).
TEST(FlatIndex, ShortAlignedRowsOfAPermutedViewAreOneRow) {
  Fusion f("permuted_rope");
  Tensor q = f.input("q", DType::BF16, {Dim::sym("B"), Dim::sym("S"), Dim::sym("H"), Dim(64)});
  Tensor c = f.input("c", DType::BF16, {Dim::sym("S"), Dim(64)});
  Tensor s = f.input("s", DType::BF16, {Dim::sym("S"), Dim(64)});
  Tensor x = permute(q, {0, 2, 1, 3});
  Tensor rot = cat({-slice(x, 3, 32), slice(x, 3, 0, 32)}, 3);
  f.output(x * c + rot * s);
  const std::string text = Executor(f).explain(resolve_input_shapes(f, {}, {{"B", 8}, {"S", 1024}, {"H", 32}}));
  EXPECT_NE(text.find("params: vec=8 threads=256 unroll=1 one_row index32\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("col_vec"), std::string::npos) << text;
  // Rows of 2048 fill the 2-D plan's lanes: it stays.
  Fusion g("wide");
  Tensor y = g.input("y", DType::BF16, {Dim::sym("B"), Dim::sym("S"), Dim::sym("H"), Dim(2048)});
  g.output(permute(y, {0, 2, 1, 3}) * 2.0);
  const std::string wide = Executor(g).explain(resolve_input_shapes(g, {}, {{"B", 8}, {"S", 64}, {"H", 4}}));
  EXPECT_EQ(wide.find("one_row"), std::string::npos) << wide;
}

// Short rows of inputs at another row stride (the halves of a swiglu's input, seed 48 #119:
// rows of 64 in rows of 128): one row of R x C with those inputs addressed from their rows'
// offsets (full/dims), where the 2-D plan would keep 8 of its 64 threads busy. Halves whose rows
// are not vec-aligned keep the 2-D plan (element by element in one row: not measured).
TEST(FlatIndex, ShortRowsAtAnotherStrideAreOneRow) {
  const Fusion f = gated_halves(DType::F16, 64, 0, false, false);
  const std::string text = Executor(f).explain(resolve_input_shapes(f, {}, {{"B", 8192}, {"W", 128}}));
  EXPECT_NE(text.find("params: vec=8 threads=256 unroll=1 one_row index32\n"), std::string::npos) << text;
  EXPECT_NE(text.find("(in,full/dims)"), std::string::npos) << text;
  const Fusion odd = gated_halves(DType::F32, 385, 0, false, false);
  const std::string t2 = Executor(odd).explain(resolve_input_shapes(odd, {}, {{"B", 4096}, {"W", 770}}));
  EXPECT_EQ(t2.find("one_row"), std::string::npos) << t2;
}
