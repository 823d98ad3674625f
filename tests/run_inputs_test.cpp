// Binding sizes and making inputs for `solder run` / `solder bench`; the --shape/--size
// spellings; finding a program by file or workload name; output fingerprints.
#include <gtest/gtest.h>

#include "frontend/explain.h"
#include "programs/load_program.h"
#include "programs/run_inputs.h"
#include "frontend/size_args.h"
#include "frontend/tensor_summary.h"
#include "ir/printer.h"
#include "ops/workloads.h"
#include "solder/error.h"

using namespace solder;

namespace {
using Shapes = std::vector<std::vector<int64_t>>;

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(SizeArgs, ParsesShapesAndSizes) {
  EXPECT_EQ(parse_shape_spec("8192x5140"), (std::vector<int64_t>{8192, 5140}));
  EXPECT_EQ(parse_shape_spec("7"), (std::vector<int64_t>{7}));
  EXPECT_TRUE(parse_shape_spec("scalar").empty());
  EXPECT_TRUE(parse_shape_spec("").empty());
  auto shapes = parse_shape_args({"t1=2x3", "s="});
  EXPECT_EQ(shapes.at("t1"), (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(shapes.at("s").empty());
  EXPECT_EQ(parse_size_args({"H=5140", "B=8"}), (Bindings{{"B", 8}, {"H", 5140}}));
  EXPECT_NE(error_of([] { parse_shape_spec("8x"); }).find("bad size '' in '8x'"), std::string::npos);
  EXPECT_NE(error_of([] { parse_shape_spec("8x-1"); }).find("bad size '-1'"), std::string::npos);
  EXPECT_NE(error_of([] { parse_size_args({"H"}); }).find("expected NAME=VALUE"), std::string::npos);
  EXPECT_NE(error_of([] { parse_size_args({"H=1", "H=2"}); }).find("given twice"), std::string::npos);
}

TEST(RunInputs, SymbolsBindFromOtherInputs) {
  Fusion f = make_workload("w1_layer_norm_fused");
  Shapes s = resolve_input_shapes(f, {{"t1", {8, 5140}}}, {});
  EXPECT_EQ(s, (Shapes{{5140}, {8, 5140}, {5140}, {5140}, {5140}}));
}

TEST(RunInputs, SizesBindSymbolsDirectly) {
  Fusion f = make_workload("w5_gelu_bias_bf16");
  EXPECT_EQ(resolve_input_shapes(f, {}, {{"B", 3}, {"H", 4}}), (Shapes{{3, 4}, {4}}));
  EXPECT_EQ(resolve_input_shapes(f, {{"b", {5}}}, {{"B", 2}}), (Shapes{{2, 5}, {5}}));
}

TEST(RunInputs, ConstantInputsNeedNothing) {
  Fusion f = make_workload("w4_einsum_5");
  EXPECT_EQ(resolve_input_shapes(f, {}, {}), (Shapes{{2, 8, 16, 1}, {2, 16, 8, 16}}));
  Fusion w2 = make_workload("w2_fp8_f32_e5m2_sat");
  EXPECT_EQ(resolve_input_shapes(w2, {}, {{"N", 10}}), (Shapes{{10}, {}}));  // scale is rank 0
}

TEST(RunInputs, ErrorsNameTheInputAndDim) {
  Fusion f = make_workload("w1_layer_norm_fused");
  std::string m = error_of([&] { resolve_input_shapes(f, {}, {{"H", 6}}); });
  EXPECT_NE(m.find("input t1 f16[B, H]: dim 0 (B) has no size"), std::string::npos) << m;
  EXPECT_NE(m.find("--size B="), std::string::npos) << m;
  m = error_of([&] { resolve_input_shapes(f, {{"t1", {4, 5}}}, {{"H", 6}}); });
  EXPECT_NE(m.find("dim 1 (H) is 6 (from --size H), but --shape t1 gives 5"), std::string::npos) << m;
  m = error_of([&] { resolve_input_shapes(f, {{"t1", {4, 5}}, {"t0", {6}}}, {}); });
  EXPECT_NE(m.find("input t1 f16[B, H]: dim 1 (H) is 6 (from --shape t0), but --shape t1 gives 5"), std::string::npos) << m;
  m = error_of([&] { resolve_input_shapes(f, {{"t9", {4}}}, {}); });
  EXPECT_NE(m.find("no input named 't9' (inputs: t0, t1, t2, t3, t4)"), std::string::npos) << m;
  m = error_of([&] { resolve_input_shapes(f, {{"t1", {4}}}, {}); });
  EXPECT_NE(m.find("has rank 2, got 1 sizes"), std::string::npos) << m;
  Fusion e = make_workload("w4_einsum_1");
  m = error_of([&] { resolve_input_shapes(e, {{"b", {16, 15}}}, {}); });
  EXPECT_NE(m.find("dim 1 (16) is 16 (a constant), but --shape b gives 15"), std::string::npos) << m;
}

TEST(RunInputs, RandomInputsAreDeterministicAndNotZero) {
  Fusion f = make_workload("w5_rms_norm_bf16");
  Shapes s = resolve_input_shapes(f, {}, {{"B", 4}, {"H", 33}});
  auto a = make_random_inputs(f, s, 7), b = make_random_inputs(f, s, 7), c = make_random_inputs(f, s, 8);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].dtype, DType::BF16);
  EXPECT_EQ(a[0].shape, (std::vector<int64_t>{4, 33}));
  EXPECT_EQ(summarize(a[0]).fnv, summarize(b[0]).fnv);
  EXPECT_NE(summarize(a[0]).fnv, summarize(c[0]).fnv);
  EXPECT_NE(summarize(a[0]).fnv, summarize(a[1]).fnv);  // inputs get different seeds
  TensorSummary sa = summarize(a[0]);
  EXPECT_LT(sa.min, 0);
  EXPECT_GT(sa.max, 0);
}

TEST(TensorSummary, CountsNonFiniteValuesApart) {
  HostTensor t = HostTensor::empty(DType::F32, {5});
  for (int i = 0; i < 5; ++i) t.set(i, i - 1.0);
  t.set(4, std::numeric_limits<double>::quiet_NaN());
  t.set(3, std::numeric_limits<double>::infinity());
  TensorSummary s = summarize(t);
  EXPECT_EQ(s.min, -1);
  EXPECT_EQ(s.max, 1);
  EXPECT_EQ(s.sum, 0);
  EXPECT_EQ(s.nan, 1);
  EXPECT_EQ(s.inf, 1);
  std::string text = format_summary(s);
  EXPECT_NE(text.find("min=-1 max=1 mean=0 sum=0 fnv=0x"), std::string::npos) << text;
  EXPECT_NE(text.find("nan=1 inf=1"), std::string::npos) << text;
}

TEST(LoadProgram, FilesAndWorkloadNames) {
  Fusion w = load_program("w3_combined");
  EXPECT_EQ(print_fusion(w), print_fusion(make_workload("w3_combined")));
  Fusion file = load_program(std::string(SOLDER_SOURCE_DIR) + "/examples/w4_einsum_1.fusion");
  EXPECT_EQ(file.name(), "w4_einsum_1");
  std::string m = error_of([] { load_program("no_such_workload"); });
  EXPECT_NE(m.find("neither a readable file nor a workload"), std::string::npos) << m;
  EXPECT_NE(m.find("w5_softmax_bf16"), std::string::npos) << m;
  m = error_of([] { load_program("missing/dir/p.fusion"); });
  EXPECT_NE(m.find("'missing/dir/p.fusion'"), std::string::npos) << m;
}

TEST(Explain, ShowsIrAndTypesWithAndWithoutSizes) {
  Fusion f = make_workload("w5_softmax_bf16");
  std::string plain = explain_fusion(f);
  EXPECT_NE(plain.find("fusion w5_softmax_bf16 {"), std::string::npos);
  EXPECT_NE(plain.find("== values"), std::string::npos);
  EXPECT_EQ(plain.find("== sizes"), std::string::npos);
  ExplainOptions opts;
  opts.sizes = Bindings{{"B", 8}, {"H", 40}};
  std::string sized = explain_fusion(f, opts);
  EXPECT_NE(sized.find("B=8, H=40"), std::string::npos) << sized;
  EXPECT_NE(sized.find("[8, 1]"), std::string::npos) << sized;
  EXPECT_NE(sized.find("cast, output"), std::string::npos) << sized;
}
