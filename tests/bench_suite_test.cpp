// The bench case lists: suites and command-line sweeps of programs over size axes.
#include <gtest/gtest.h>

#include <set>

#include "bench/suite.h"
#include "solder/error.h"

using namespace solder;
using namespace solder::bench;

TEST(BenchSweep, EveryCombinationOfTheSizeAxes) {
  auto cases = sweep_cases({"w1_layer_norm_fused", "examples/w5_softmax_bf16.fusion"}, {"B=16,8192", "H=768,5140,20480"});
  ASSERT_EQ(cases.size(), 12u);
  EXPECT_EQ(cases[0].name, "w1_layer_norm_fused/B=16,H=768");
  EXPECT_EQ(cases[0].workload, "w1_layer_norm_fused");
  EXPECT_EQ(cases[5].sizes.at("B"), 8192);
  EXPECT_EQ(cases[5].sizes.at("H"), 20480);
  EXPECT_EQ(cases[6].name, "w5_softmax_bf16/B=16,H=768");  // a file's case is named by its stem
  EXPECT_EQ(cases[6].workload, "examples/w5_softmax_bf16.fusion");
  std::set<std::string> names;
  for (const auto& c : cases) names.insert(c.name);
  EXPECT_EQ(names.size(), cases.size());
}

TEST(BenchSweep, NoAxesGivesOneCasePerProgram) {
  auto cases = sweep_cases({"w4_einsum_1"}, {});
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].name, "w4_einsum_1");
}

TEST(BenchSweep, BadAxesNameTheProblem) {
  for (const char* bad : {"H", "H=", "=5", "H=7x", "H=0", "H=5,,6", "H=-3"}) {
    try {
      sweep_cases({"w1_layer_norm_fused"}, {bad});
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(BenchSuites, NormsSweepCoversTheDtypesAndBatches) {
  auto cases = suite_cases("norms");
  std::set<std::string> workloads;
  std::set<int64_t> batches;
  for (const auto& c : cases) {
    workloads.insert(c.workload);
    if (c.workload == "w1_layer_norm_fused") batches.insert(c.sizes.at("B"));
  }
  for (const char* w : {"w1_layer_norm_fused", "w1_layer_norm_fused_bf16", "w1_layer_norm_fused_f32", "w5_softmax_bf16",
                        "w5_rms_norm_bf16"})
    EXPECT_TRUE(workloads.count(w)) << w;
  EXPECT_EQ(batches, (std::set<int64_t>{16, 512, 2048, 8192, 16384}));
  EXPECT_THROW(suite_cases("nope"), Error);
}
