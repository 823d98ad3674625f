// Per-step profiling on the GPU (Executor::set_profiling, bench::profile_iterations): W1 is one
// timed kernel step; each iteration's step times fit inside its wall time; profiling off
// leaves no timings; sources of the planned kernels are available after a run.
#include <gtest/gtest.h>

#include "bench/profile_run.h"
#include "bench/profile_table.h"
#include "programs/run_inputs.h"
#include "gpu_compare.h"
#include "ops/workloads.h"

using namespace solder;

namespace {

std::vector<DeviceTensor> w1_inputs(const Fusion& f) {
  auto shapes = resolve_input_shapes(f, {}, {{"B", 8192}, {"H", 4096}});
  std::vector<DeviceTensor> d;
  for (const auto& h : make_random_inputs(f, shapes, 3)) d.push_back(to_device(h));
  return d;
}

}  // namespace

TEST(GpuProfile, W1IsOneTimedKernelInsideTheWallTime) {
  SKIP_WITHOUT_GPU();
  Fusion f = make_workload("w1_layer_norm_fused");
  Executor ex(f);
  auto inputs = w1_inputs(f);
  auto iters = bench::profile_iterations(ex, inputs, 5);
  ASSERT_EQ(iters.size(), 5u);
  for (const auto& it : iters) {
    int kernels = 0;
    double sum_ms = 0;
    for (const auto& s : it.steps) {
      if (!s.launched()) continue;
      ++kernels;
      EXPECT_GT(s.ms, 0) << s.name;
      EXPECT_GT(s.registers, 0) << s.name;
      EXPECT_GT(s.block, 0u) << s.name;
      sum_ms += s.ms;
    }
    EXPECT_EQ(kernels, 1);
    EXPECT_GT(it.wall_us, 0);
    EXPECT_LE(sum_ms * 1e3, it.wall_us) << "step times exceed the iteration's wall time";
  }
  bench::Profile p = bench::build_profile(bench::timeline_from_steps(iters));
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].calls, 5);
  EXPECT_GT(p.gpu_busy_pct, 0);
  EXPECT_LE(p.gpu_busy_pct, 100);
  // profile_iterations switches profiling off again: a plain run records nothing.
  ex.run(inputs);
  EXPECT_TRUE(ex.last_step_timings().empty());
  auto sources = ex.kernel_sources();
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_EQ(sources[0].name, p.kernels[0].name);
  EXPECT_NE(sources[0].source.find("extern \"C\" __global__"), std::string::npos);
  EXPECT_GT(bench::unprofiled_wall_us(ex, inputs, 3), 0);
}

TEST(GpuProfile, CopyAndViewStepsAreListed) {
  SKIP_WITHOUT_GPU();
  // Every workload: one timing per step, views untimed, launched steps timed, outputs unchanged.
  for (const auto& name : workload_names()) {
    Fusion f = make_workload(name);
    auto shapes = resolve_input_shapes(f, {}, {{"B", 37}, {"H", 1030}, {"N", 100003}, {"M", 33}, {"K", 129}});
    auto host = make_random_inputs(f, shapes, 5);
    std::vector<DeviceTensor> d;
    for (const auto& h : host) d.push_back(to_device(h));
    Executor plain(f), profiled(f);
    auto want = plain.run(d);
    profiled.set_profiling(true);
    auto got = profiled.run(d);
    auto steps = profiled.last_step_timings();
    EXPECT_FALSE(steps.empty()) << name;
    for (const auto& s : steps) {
      if (s.launched()) EXPECT_GE(s.ms, 0) << name << " " << s.name;
      else EXPECT_EQ(s.ms, 0) << name;
    }
    for (size_t i = 0; i < want.size(); ++i)
      gpu_testing::expect_close(to_host(got[i]), to_host(want[i]), name + " profiled output " + std::to_string(i));
  }
}
