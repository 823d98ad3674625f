#include <gtest/gtest.h>

#include "bench/kernel_category.h"
#include "bench/profile_table.h"

using namespace solder::bench;

namespace {

KernelInterval kern(const std::string& name, double dur, unsigned grid = 132, uint64_t bytes = 0) {
  KernelInterval k;
  k.name = name;
  k.dur_us = dur;
  k.shape.grid = {grid, 1, 1};
  k.shape.block = {256, 1, 1};
  k.bytes = bytes;
  return k;
}

}  // namespace

TEST(ProfileTable, CategoryFromName) {
  EXPECT_EQ(kernel_category("solder_pw_add_tanh_3"), "pointwise");
  EXPECT_EQ(kernel_category("solder_red_amax_0"), "reduction");
  EXPECT_EQ(kernel_category("solder_norm_ln"), "persistent");
  EXPECT_EQ(kernel_category("solder_mm_cublaslt"), "matmul/library");
  EXPECT_EQ(kernel_category("solder_copy"), "copy");
  EXPECT_EQ(kernel_category("solder_transpose_cast_add_1"), "pointwise");
  EXPECT_EQ(kernel_category("solder_weird_x"), "other");
  EXPECT_EQ(kernel_category("sm90_xmma_gemm_f32f32_tf32"), "matmul/library");
  EXPECT_EQ(kernel_category("triton_poi_fused_0"), "other");
}

TEST(ProfileTable, BreakdownAndBusy) {
  Timeline t;
  t.kernels = {kern("solder_pw_gelu_0", 10), kern("solder_pw_gelu_0", 10, 264), kern("solder_pw_gelu_0", 10),
               kern("solder_norm_ln_1", 50, 132, 100'000'000), kern("solder_mm_gemm_2", 15), kern("foo", 5)};
  t.wall_us = 200;
  Profile p = build_profile(t);
  EXPECT_DOUBLE_EQ(p.kernel_us, 100);
  EXPECT_DOUBLE_EQ(p.gpu_busy_pct, 50);
  ASSERT_EQ(p.kernels.size(), 4u);
  EXPECT_EQ(p.kernels[0].name, "solder_norm_ln_1");  // largest first
  EXPECT_DOUBLE_EQ(p.kernels[0].share_pct, 50);
  EXPECT_DOUBLE_EQ(p.kernels[0].gbs, 2000);
  EXPECT_EQ(p.kernels[1].name, "solder_pw_gelu_0");
  EXPECT_EQ(p.kernels[1].calls, 3);
  EXPECT_DOUBLE_EQ(p.kernels[1].avg_us, 10);
  EXPECT_EQ(p.kernels[1].shape, "grid 132x1x1 block 256x1x1 (+1 other)");
  ASSERT_EQ(p.categories.size(), 4u);
  EXPECT_EQ(p.categories[0].category, "pointwise");
  EXPECT_DOUBLE_EQ(p.categories[0].share_pct, 30);
  EXPECT_EQ(p.categories[0].calls, 3);
  EXPECT_EQ(p.categories[1].category, "persistent");
  EXPECT_EQ(p.categories[2].category, "matmul/library");
  EXPECT_EQ(p.categories[3].category, "other");
  double sum = 0;
  for (const auto& c : p.categories) sum += c.share_pct;
  EXPECT_NEAR(sum, 100, 1e-9);
  std::string text = format_profile(p);
  EXPECT_NE(text.find("GPU busy: 50.0%"), std::string::npos);
}

TEST(ProfileTable, UnknownWallTime) {
  Timeline t;
  t.kernels = {kern("solder_pw_a", 3)};
  Profile p = build_profile(t);
  EXPECT_EQ(p.gpu_busy_pct, 0);
  EXPECT_NE(format_profile(p).find("unknown"), std::string::npos);
}
