// `solder profile` without a GPU: per-step timings -> Timeline -> profile rows and categories;
// kernel sources and ptxas reports dumped from the plan; the CLI's no-GPU fallback end to end.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "bench/profile_table.h"
#include "bench/step_timeline.h"
#include "frontend/kernel_dump.h"
#include "programs/run_inputs.h"
#include "ops/workloads.h"
#include "runtime/driver.h"
#include "solder/error.h"
#include "solder/executor.h"

using namespace solder;
namespace fs = std::filesystem;

namespace {

StepTiming step(const std::string& name, const std::string& category, float ms, int64_t bytes = 0, int regs = 0) {
  StepTiming s;
  s.name = name;
  s.category = category;
  s.ms = ms;
  s.grid_x = 132;
  s.grid_y = 1;
  s.block = 256;
  s.registers = regs;
  s.bytes = bytes;
  return s;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path fresh_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("solder_profile_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

std::vector<std::vector<int64_t>> w1_shapes(const Fusion& f) {
  return resolve_input_shapes(f, {}, {{"B", 64}, {"H", 768}});
}

}  // namespace

TEST(ProfileTimeline, StepsLaidEndToEndPerIteration) {
  bench::ProfiledIteration a, b;
  a.steps = {step("solder_norm_ln_0", "inner-reduction", 0.010f, 20'000'000, 40), step("view", "view", 0),
             step("solder_copy_transpose", "copy", 0.005f), step("cublasLt_matmul", "matmul", 0.020f)};
  a.wall_us = 100;
  b.steps = a.steps;
  b.steps[0].ms = 0.030f;
  b.wall_us = 150;
  bench::Timeline t = bench::timeline_from_steps({a, b});

  EXPECT_DOUBLE_EQ(t.wall_us, 250);
  ASSERT_EQ(t.kernels.size(), 6u);  // views are not kernels
  EXPECT_EQ(t.kernels[0].name, "solder_norm_ln_0");
  EXPECT_NEAR(t.kernels[0].start_us, 0, 1e-9);
  EXPECT_NEAR(t.kernels[0].dur_us, 10, 1e-3);
  EXPECT_NEAR(t.kernels[1].start_us, 10, 1e-3);  // right after the first step
  EXPECT_NEAR(t.kernels[2].start_us, 15, 1e-3);
  EXPECT_NEAR(t.kernels[3].start_us, 100, 1e-9);  // second iteration starts at its host interval
  EXPECT_NEAR(t.kernels[3].dur_us, 30, 1e-3);
  EXPECT_EQ(t.kernels[0].registers, 40);
  EXPECT_EQ(t.kernels[1].registers, -1);  // a copy step has no ptxas figure
  EXPECT_EQ(t.kernels[0].shape.grid[0], 132u);
  EXPECT_EQ(t.kernels[0].shape.block[0], 256u);

  // Host side: one interval per iteration plus the 0-µs views.
  ASSERT_EQ(t.host.size(), 4u);
  EXPECT_EQ(t.host[0].name, "iteration 0");
  EXPECT_DOUBLE_EQ(t.host[0].dur_us, 100);
  EXPECT_EQ(t.host[1].name, "view");
  EXPECT_DOUBLE_EQ(t.host[1].dur_us, 0);
  EXPECT_NEAR(t.host[1].start_us, 10, 1e-3);
  EXPECT_EQ(t.host[2].name, "iteration 1");
  EXPECT_DOUBLE_EQ(t.host[2].start_us, 100);
}

TEST(ProfileTimeline, ProfileRowsAndCategories) {
  bench::ProfiledIteration it;
  it.steps = {step("solder_norm_ln_0", "inner-reduction", 0.040f, 40'000'000), step("view", "view", 0),
              step("solder_pw_gelu_1", "pointwise", 0.020f), step("solder_copy_cat", "copy", 0.010f),
              step("cublasLt_matmul", "matmul", 0.030f)};
  it.wall_us = 200;
  std::vector<bench::ProfiledIteration> iters(2, it);
  bench::Profile p = bench::build_profile(bench::timeline_from_steps(iters));

  EXPECT_NEAR(p.kernel_us, 200, 1e-3);
  EXPECT_DOUBLE_EQ(p.wall_us, 400);
  EXPECT_NEAR(p.gpu_busy_pct, 50, 1e-3);
  ASSERT_EQ(p.kernels.size(), 4u);
  EXPECT_EQ(p.kernels[0].name, "solder_norm_ln_0");
  EXPECT_EQ(p.kernels[0].category, "persistent");
  EXPECT_EQ(p.kernels[0].calls, 2);
  EXPECT_NEAR(p.kernels[0].share_pct, 40, 1e-3);
  EXPECT_NEAR(p.kernels[0].gbs, 1000, 1e-2);  // 40 MB in 40 µs
  EXPECT_EQ(p.kernels[1].name, "cublasLt_matmul");
  EXPECT_EQ(p.kernels[1].category, "matmul/library");
  ASSERT_EQ(p.categories.size(), 4u);
  EXPECT_EQ(p.categories[0].category, "pointwise");
  EXPECT_NEAR(p.categories[0].share_pct, 20, 1e-3);
  EXPECT_EQ(p.categories[1].category, "persistent");
  EXPECT_EQ(p.categories[2].category, "matmul/library");
  EXPECT_EQ(p.categories[3].category, "copy");
  EXPECT_EQ(p.categories[3].calls, 2);
  EXPECT_NE(bench::format_profile(p).find("GPU busy: 50.0%"), std::string::npos);
}

TEST(ProfileTimeline, EmptyProfileHasNoBusyFigure) {
  bench::Profile p = bench::build_profile(bench::timeline_from_steps({}));
  EXPECT_TRUE(p.kernels.empty());
  EXPECT_DOUBLE_EQ(p.gpu_busy_pct, 0);
}

TEST(ProfileExecutor, NothingProfiledOrPlannedBeforeARun) {
  Executor ex(make_workload("w1_layer_norm_fused"));
  EXPECT_TRUE(ex.last_step_timings().empty());
  ex.set_profiling(true);
  EXPECT_TRUE(ex.last_step_timings().empty());
  ex.set_profiling(false);
  EXPECT_TRUE(ex.kernel_sources().empty());
}

TEST(ProfileDump, SourcesWithoutGpu) {
  for (const char* name : {"w1_layer_norm_fused", "w5_softmax_bf16"}) {
    Fusion f = make_workload(name);
    Executor ex(f);
    std::vector<KernelSourceInfo> sources;
    auto records = ex.compile_for(w1_shapes(f), &sources);
    ASSERT_FALSE(records.empty()) << name;
    ASSERT_EQ(sources.size(), records.size()) << name;
    fs::path dir = fresh_dir(name);
    auto written = dump_kernel_sources(sources, dir.string());
    EXPECT_EQ(written.size(), 2 * sources.size());
    for (size_t i = 0; i < records.size(); ++i) {
      EXPECT_EQ(sources[i].name, records[i].name);
      EXPECT_EQ(sources[i].registers, records[i].registers);
      std::string cu = read(dir / (records[i].name + ".cu"));
      EXPECT_NE(cu.find(records[i].name), std::string::npos) << name;
      EXPECT_NE(cu.find("extern \"C\" __global__"), std::string::npos) << name;
      std::string px = read(dir / (records[i].name + ".ptxas.txt"));
      EXPECT_NE(px.find(std::to_string(records[i].registers) + " registers"), std::string::npos) << px;
    }
    fs::remove_all(dir);
  }
}

TEST(ProfileDump, UnwritableDirectoryIsAnError) {
  KernelSourceInfo k{"solder_pw_x_0", "extern \"C\" __global__ void solder_pw_x_0() {}", "", 8, 0};
  fs::path file = fresh_dir("file");
  { std::ofstream(file) << "not a directory"; }
  EXPECT_THROW(dump_kernel_sources({k}, (file / "sub").string()), Error);
  fs::remove(file);
}

// The command itself, without a GPU: says why, prints the plan, dumps one .cu per kernel.
TEST(ProfileCli, NoGpuFallbackDumpsSources) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present: the fallback is not taken";
  fs::path dir = fresh_dir("cli");
  fs::path log = dir.string() + ".log";
  std::string cmd = std::string(SOLDER_CLI) + " profile w1_layer_norm_fused --size B=64 --size H=768 --dump-dir " +
                    dir.string() + " > " + log.string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read(log);
  std::string out = read(log);
  EXPECT_EQ(out.rfind("no GPU: ", 0), 0u) << out;
  EXPECT_NE(out.find("regs"), std::string::npos) << out;
  int cu_files = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".cu") {
      ++cu_files;
      std::string src = read(e.path());
      EXPECT_NE(src.find("extern \"C\" __global__"), std::string::npos);
      EXPECT_NE(src.find(e.path().stem().string()), std::string::npos);
      EXPECT_NE(out.find(e.path().stem().string()), std::string::npos) << "kernel missing from the plan table";
    }
  EXPECT_EQ(cu_files, 1);  // W1 is one fused kernel
  fs::remove_all(dir);
  fs::remove(log);
}
