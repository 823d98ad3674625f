// The scheduler contract and typed plans: which registered scheduler takes a segment (and why
// the others cannot), every candidate validates and prints in a form that parses back, an
// impossible combination is an error, user overrides pin plans, and a plan that spills still
// runs (the least-spilling one, said so) instead of being refused.
#include <gtest/gtest.h>

#include "programs/run_inputs.h"
#include "ir/parser.h"
#include "ops/workloads.h"
#include "pipeline/compile_kernel.h"
#include "pipeline/pipeline.h"
#include "solder/error.h"
#include "solder/executor.h"

using namespace solder;

namespace {

struct Scheduled {
  std::string scheduler;
  std::vector<std::string> passed_over;
  std::vector<KernelPlan> candidates;
};

Scheduled schedule(const Fusion& f, const Bindings& sizes) {
  SegmentedFusion sf = lower(f);
  const Bindings b = bind_shapes(sf.fusion, resolve_input_shapes(f, {}, sizes));
  int si = 0;
  while (sf.segments.at(si).kind != SegmentKind::Kernel) ++si;
  const LaunchFacts facts = contiguous_facts(sf, si, b);
  const KernelShape ks = analyze_kernel(sf.fusion, sf.segments[si]);
  const ScheduleContext cx{sf.fusion, sf.segments[si], si, ks, facts, h100_profile()};
  const SchedulerChoice choice = choose_scheduler(cx);
  return {choice.scheduler->name(), choice.passed_over, choice.scheduler->candidates(cx)};
}

Scheduled schedule(const std::string& workload, const Bindings& sizes) { return schedule(make_workload(workload), sizes); }

}  // namespace

TEST(SchedulerRegistry, EachCategoryHasItsScheduler) {
  Scheduled norm = schedule("w1_layer_norm_fused", {{"B", 8192}, {"H", 5140}});
  EXPECT_EQ(norm.scheduler, "inner");
  ASSERT_EQ(norm.passed_over.size(), 4u);  // pointwise, transpose, outer and outer_norm (a row reduction)
  EXPECT_EQ(norm.passed_over[0], "pointwise: the segment reduces");
  EXPECT_EQ(norm.passed_over[1], "transpose: no two operands are unit-stride along different dims that both vary along");
  EXPECT_EQ(norm.passed_over[2].rfind("outer: ", 0), 0u) << norm.passed_over[2];
  EXPECT_EQ(norm.passed_over[3].rfind("outer_norm: ", 0), 0u) << norm.passed_over[3];
  EXPECT_EQ(schedule("w5_gelu_bias_bf16", {{"B", 64}, {"H", 1024}}).scheduler, "pointwise");
  Scheduled amax = schedule("w2_fp8_bf16_e4m3_sat", {{"N", 1 << 20}});
  EXPECT_EQ(amax.scheduler, "full_reduction");
  EXPECT_EQ(amax.passed_over.size(), 5u);  // pointwise, transpose, outer, outer_norm, inner
}

// Every candidate of every scheduler is a valid plan whose printed form reads back to itself.
TEST(TypedPlans, CandidatesValidateAndRoundTrip) {
  const std::vector<std::pair<std::string, Bindings>> cases = {
      {"w1_layer_norm_fused", {{"B", 8192}, {"H", 5140}}},   {"w1_layer_norm_fused", {{"B", 8192}, {"H", 65536}}},
      {"w1_layer_norm_fused_f32", {{"B", 8192}, {"H", 20480}}}, {"w5_rms_norm_bf16", {{"B", 8192}, {"H", 770}}},
      {"w5_softmax_bf16", {{"B", 8192}, {"H", 65536}}},       {"w5_gelu_bias_bf16", {{"B", 1}, {"H", 1 << 21}}},
      {"w2_fp8_f32_e5m2_nosat", {{"N", 1000003}}},         {"w5_gelu_bias_bf16", {{"B", 64}, {"H", 4097}}}};
  size_t n = 0;
  for (const auto& [w, sizes] : cases)
    for (const KernelPlan& plan : schedule(w, sizes).candidates) {
      ++n;
      EXPECT_TRUE(plan.problems().empty()) << w << ": " << plan.params.str() << ": " << plan.problems().front();
      const KernelParams back = parse_params(plan.params.str(), KernelParams{.dyn_smem = plan.params.dyn_smem});
      EXPECT_EQ(back.str(), plan.params.str()) << w;
      EXPECT_EQ(back.hash(), plan.params.hash()) << w;
    }
  EXPECT_GT(n, 20u);
}

TEST(TypedPlans, ImpossibleCombinationsAreErrors) {
  KernelPlan plan = schedule("w1_layer_norm_fused", {{"B", 8192}, {"H", 4096}}).candidates.front();
  ASSERT_TRUE(plan.problems().empty());
  auto problem_of = [&](const std::string& parts) {
    KernelPlan p = plan;
    p.params = parse_params(parts, plan.params);
    auto bad = p.problems();
    EXPECT_THROW(p.validate(), Error) << parts;
    return bad.empty() ? std::string() : bad.front();
  };
  EXPECT_NE(problem_of("weight_ring=4").find("weight ring"), std::string::npos);
  EXPECT_NE(problem_of("looped").find("looped row"), std::string::npos);
  EXPECT_NE(problem_of("cluster=3").find("cluster"), std::string::npos);
  EXPECT_NE(problem_of("tickets,prefetch=0").find("tickets"), std::string::npos);
  EXPECT_NE(problem_of("threads=100").find("threads_per_row x rows_per_block"), std::string::npos);
  KernelPlan flat = schedule("w5_gelu_bias_bf16", {{"B", 64}, {"H", 1024}}).candidates.front();
  flat.params = parse_params("batch=2", flat.params);
  EXPECT_FALSE(flat.problems().empty());
}

TEST(TypedPlans, ParseNamesBadParts) {
  EXPECT_THROW(parse_params("threads_per_rows=4"), Error);
  EXPECT_THROW(parse_params("vec=eight"), Error);
  EXPECT_THROW(parse_params("tickets=2"), Error);
  EXPECT_THROW(parse_params("vec=-4"), Error);
  const KernelParams p = parse_params("vec=4, threads=128 prefetch=smem:4096,looped");
  EXPECT_EQ(p.vec, 4);
  EXPECT_EQ(p.threads, 128);
  EXPECT_TRUE(p.prefetch_smem);
  EXPECT_EQ(p.dyn_smem, 4096);
  EXPECT_EQ(p.batch, 0);
}

TEST(PlanOverrides, PinAKernelsPlan) {
  Fusion f = make_workload("w1_layer_norm_fused");
  const auto shapes = resolve_input_shapes(f, {}, {{"B", 8192}, {"H", 4096}});
  Executor pinned(f, ExecutorOptions{"threads_per_row=512,prefetch=0,tickets=0,batch=1"});
  const auto recs = pinned.compile_for(shapes);
  ASSERT_EQ(recs.size(), 1u);
  const KernelParams p = parse_params(recs[0].params);
  EXPECT_EQ(p.threads_per_row, 512);
  EXPECT_FALSE(p.prefetch);
  // A segment number selects one kernel; a segment that is no kernel changes nothing.
  EXPECT_EQ(Executor(f, ExecutorOptions{"7:threads_per_row=512"}).compile_for(shapes)[0].params,
            Executor(f).compile_for(shapes)[0].params);
  EXPECT_THROW(Executor(f, ExecutorOptions{"thread_per_row=512"}), Error);
  EXPECT_THROW(Executor(f, ExecutorOptions{"x:vec=4"}), Error);
  // An impossible pinned plan is an error that says why, not a kernel that ignores it.
  try {
    Executor(f, ExecutorOptions{"weight_ring=2"}).compile_for(shapes);
    ADD_FAILURE() << "an impossible plan compiled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("weight ring"), std::string::npos) << e.what();
  }
  // Pins the kernel would mishandle over rows of 130 bf16 (phase-shifted: not whole 16-byte
  // vectors) are refused by name (the CPU kernel simulator found both): a shared-memory prefetch
  // copies whole vectors from each row's start; a looped pin keeps the phased plan's vec of 8.
  Fusion rms = make_workload("w5_rms_norm_bf16");
  const auto odd = resolve_input_shapes(rms, {}, {{"B", 5}, {"H", 130}});
  for (const auto& [pin, why] : std::vector<std::pair<std::string, std::string>>{
           {"threads_per_row=64,rows_per_block=1,prefetch=smem:65536,resident=0", "prefetch=smem needs aligned rows"},
           {"threads_per_row=32,looped=1,prefetch=0,tickets=0,resident=0,col_vec=0,recompute=0", "not whole vectors of 8"}}) {
    try {
      Executor(rms, ExecutorOptions{pin}).compile_for(odd);
      ADD_FAILURE() << pin << ": not refused";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}

// A register cap the kernel cannot live with spills: it still runs, and explain says so.
TEST(PlanOverrides, ARegisterCapThatSpillsStillRuns) {
  Fusion f = make_workload("w1_layer_norm_fused_f32");
  const auto shapes = resolve_input_shapes(f, {}, {{"B", 8192}, {"H", 16384}});
  Executor capped(f, ExecutorOptions{"max_registers=32"});
  const std::string text = capped.explain(shapes);
  EXPECT_NE(text.find("max_registers=32"), std::string::npos) << text;
  EXPECT_NE(text.find("every plan spills"), std::string::npos) << text;
  const auto recs = capped.compile_for(shapes);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_LE(recs[0].registers, 32);
  EXPECT_GT(recs[0].spill_bytes, 0);
}

// explain plans for the operand layouts it is given: a norm over the rows of a transposed
// input reads it through shared-memory tiles (inner, staged; rows of 1024 fit a tile) where
// the contiguous one reads it as vectors.
TEST(Explain, PlansForTheGivenLayouts) {
  Fusion f = make_workload("w5_rms_norm_bf16");
  Executor ex(f);
  const std::string contiguous = ex.explain({{256, 1024}, {1024}});
  EXPECT_NE(contiguous.find("x(in,full)"), std::string::npos) << contiguous;
  const std::string transposed = ex.explain({{256, 1024}, {1024}}, {{1, 256}, {1}});
  EXPECT_NE(transposed.find("x(in,staged)"), std::string::npos) << transposed;
  EXPECT_NE(transposed.find("scheduler: inner"), std::string::npos) << transposed;
  EXPECT_NE(transposed.find("not outer_norm: the inner scheduler's first plan stages x"), std::string::npos) << transposed;
}

// A plan's `scheduler=NAME` takes the kernel with that scheduler where it can, even where it
// defers to another (outer_norm leaves a transposed input whose rows inner stages to inner);
// where it cannot, or no scheduler has the name, an error says so.
TEST(PlanOverrides, PinAScheduler) {
  Fusion f = make_workload("w5_rms_norm_bf16");
  const std::vector<std::vector<int64_t>> shapes{{256, 1024}, {1024}}, transposed{{1, 256}, {1}};
  const std::string pinned = Executor(f, ExecutorOptions{"scheduler=outer_norm"}).explain(shapes, transposed);
  EXPECT_NE(pinned.find("scheduler: outer_norm (pinned by the plan"), std::string::npos) << pinned;
  EXPECT_NE(pinned.find("(outer-reduction)"), std::string::npos) << pinned;
  const std::string with_parts = Executor(f, ExecutorOptions{"scheduler=outer_norm,threads=512"}).explain(shapes, transposed);
  EXPECT_NE(with_parts.find("threads=512"), std::string::npos) << with_parts;
  for (const auto& [pin, why] : std::vector<std::pair<std::string, std::string>>{
           {"scheduler=outer", "the pinned scheduler outer cannot take"}, {"scheduler=nope", "no scheduler named nope"}}) {
    try {
      Executor(f, ExecutorOptions{pin}).explain(shapes, transposed);
      ADD_FAILURE() << pin << ": not refused";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}

// Few rows (fewer than SMs): one row per block and each row over more threads, so the rows
// reach as many SMs as they can (64 rows took 8 blocks of 8 rows before).
TEST(SchedulerChoices, FewRowsSpreadOverTheSMs) {
  for (const char* w : {"w1_layer_norm_fused", "w1_layer_norm_fused_bf16", "w1_layer_norm_fused_f32"}) {
    const KernelPlan plan = schedule(w, {{"B", 64}, {"H", 1024}}).candidates.front();
    EXPECT_EQ(plan.params.rows_per_block, 1) << w << ": " << plan.params.str();
    EXPECT_EQ(plan.params.batch, 1) << w << ": " << plan.params.str();
  }
  // Many rows keep several short rows per block.
  EXPECT_GT(schedule("w1_layer_norm_fused", {{"B", 8192}, {"H", 768}}).candidates.front().params.rows_per_block, 1);
}

// Norm rows of a wave or two (rows x threads under 256 an SM) spread over more threads, as
// rows fewer than SMs do: W1 f32 rows of 1024 take 128 threads at B = 257, a warp at B = 2048.
// A plain reduction's rows keep their threads (measured slower spread: seed 45 #060).
TEST(SchedulerChoices, NormRowsOfAWaveOrTwoSpread) {
  const auto tpr = [](const Scheduled& s) { return s.candidates.front().params.threads_per_row; };
  EXPECT_EQ(tpr(schedule("w1_layer_norm_fused_f32", {{"B", 257}, {"H", 1024}})), 128);
  EXPECT_EQ(tpr(schedule("w1_layer_norm_fused_f32", {{"B", 2048}, {"H", 1024}})), 32);
  const Fusion sum = parse_fusion("fusion s {\n  input x: f32[B, H]\n  r = sum(x, axes=[1], keepdim=false)\n  output r\n}\n");
  EXPECT_EQ(tpr(schedule(sum, {{"B", 257}, {"H", 1024}})), tpr(schedule(sum, {{"B", 2048}, {"H", 1024}})));
}

// A plain reduction of rows no block holds, split over a cluster: its vectors are loads in
// flight, so blocks of at most 512 threads (two an SM) may take up to 16 a thread (f32 rows of
// 128000 over 4 blocks of 512 threads, where the prefetch does not fit), not only the 8 of a
// norm's held rows (seed 46 #142: 93.4 -> 82.4 us).
TEST(SchedulerChoices, PlainReductionsOverClustersTakeMoreVectorsAThread) {
  const Fusion sum = parse_fusion("fusion s {\n  input x: f32[B, H]\n  r = sum(x, axes=[1], keepdim=false)\n  output r\n}\n");
  const Scheduled s = schedule(sum, {{"B", 512}, {"H", 128000}});
  ASSERT_EQ(s.scheduler, "inner");
  EXPECT_GT(s.candidates.front().params.cluster, 1) << s.candidates.front().params.str();
  bool wide = false;
  for (const KernelPlan& c : s.candidates) wide |= c.params.cluster > 1 && c.params.threads <= 512 && c.params.batch > 8;
  EXPECT_TRUE(wide) << "a cluster plan of blocks of at most 512 threads, more than 8 vectors a thread";
}

// A row a warp holds takes half a warp where that leaves fewer slots empty: 16-bit rows of 333
// are 43 phased vectors of 8, 16 threads x 3 (43 of 48 slots) rather than 32 x 2 (43 of 64);
// rows of 256 vectors (32 x 1 or 16 x 2 alike) keep the warp. Compiles without spills.
TEST(SchedulerChoices, WarpRowsTakeHalfAWarpWhereItFillsTheirSlots) {
  const KernelPlan odd = schedule("w5_softmax_bf16", {{"B", 16384}, {"H", 333}}).candidates.front();
  EXPECT_EQ(odd.params.threads_per_row, 16) << odd.params.str();
  EXPECT_EQ(odd.params.batch, 3) << odd.params.str();
  const KernelPlan even = schedule("w5_softmax_bf16", {{"B", 16384}, {"H", 256}}).candidates.front();
  EXPECT_EQ(even.params.threads_per_row, 32) << even.params.str();
  const std::string text = Executor(make_workload("w5_softmax_bf16")).explain({{16384, 333}});
  EXPECT_NE(text.find("threads_per_row=16"), std::string::npos) << text;
  EXPECT_NE(text.find(" 0 bytes spill stores"), std::string::npos) << text;
}

// Inner rows of odd length with one weight (rms norm's): phased vectors of 8, the weight read
// element by element at each row's phase (a phase step of one element); rows of even length
// whose phase step is 2 took that form already. Compiles without spills.
TEST(SchedulerChoices, OddRowsWithOneWeightArePhaseShifted) {
  const KernelPlan odd = schedule("w5_rms_norm_bf16", {{"B", 4096}, {"H", 333}}).candidates.front();
  EXPECT_EQ(odd.params.vec, 8) << odd.params.str();
  EXPECT_EQ(odd.params.col_vec, 1) << odd.params.str();
  const std::string text = Executor(make_workload("w5_rms_norm_bf16")).explain({{4096, 1001}, {1001}});
  EXPECT_NE(text.find("phased col_vec=1"), std::string::npos) << text;
  EXPECT_NE(text.find(" 0 bytes spill stores"), std::string::npos) << text;
}

// Pointwise rows that do not start vector-aligned (an odd row length) load whole aligned vectors
// shifted by each row's phase (masked at both ends), the bias element by element; aligned rows
// keep the plain plan. The phased kernel compiles without spills.
TEST(SchedulerChoices, OddRowsOfPointwiseKernelsArePhaseShifted) {
  const KernelPlan odd = schedule("w5_gelu_bias_bf16", {{"B", 64}, {"H", 4097}}).candidates.front();
  EXPECT_EQ(odd.params.vec, 8) << odd.params.str();
  EXPECT_EQ(odd.params.col_vec, 1) << odd.params.str();
  const KernelPlan even = schedule("w5_gelu_bias_bf16", {{"B", 64}, {"H", 4096}}).candidates.front();
  EXPECT_EQ(even.params.col_vec, 0) << even.params.str();
  Executor ex(make_workload("w5_gelu_bias_bf16"));
  const std::string text = ex.explain({{1000, 333}, {333}});
  EXPECT_NE(text.find("phased col_vec=1"), std::string::npos) << text;
  EXPECT_NE(text.find(" 0 bytes spill stores"), std::string::npos) << text;
}

// A kernel with no operand loaded as vectors (a full reduction of an input strided along its
// rows: General) takes one element per thread: VEC consecutive elements per thread made a warp's
// reads stride apart and unrolled the element-wise addressing VEC x UNROLL times (seconds of
// ptxas). A slice of whole rows of a wider tensor is read as rows, phase-shifted.
TEST(SchedulerChoices, NoVectorOperandsNoVectorChunks) {
  Fusion f("amax_slice");
  Tensor x = f.input("x", DType::BF16, {Dim::sym("B"), Dim::sym("H")});
  f.output(max(x, {0, 1}, true) * 0.5);
  Executor ex(f);
  const std::string text = ex.explain({{2048, 8192}}, {{16384 + 7, 2}});
  EXPECT_NE(text.find("x(in,general)"), std::string::npos) << text;
  EXPECT_NE(text.find("params: vec=1 "), std::string::npos) << text;
  const std::string rows = ex.explain({{2048, 16384}}, {{16384 + 7, 1}});
  EXPECT_NE(rows.find("x(in,full)"), std::string::npos) << rows;
  EXPECT_NE(rows.find("params: vec=8 "), std::string::npos) << rows;
  EXPECT_NE(rows.find("phased col_vec=1"), std::string::npos) << rows;
}
