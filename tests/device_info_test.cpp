// Device properties: the recorded H100 profile and arch strings.
#include <gtest/gtest.h>

#include "runtime/device_info.h"
#include "runtime/driver.h"

using namespace solder;

TEST(DeviceInfo, H100Profile) {
  DeviceInfo d = h100_profile();
  EXPECT_EQ(d.sm_count, 132);
  EXPECT_EQ(d.regs_per_sm, 65536);
  EXPECT_EQ(d.smem_per_sm, 233472);
  EXPECT_EQ(d.smem_per_block_optin, 232448);
  EXPECT_EQ(d.l2_bytes, 50 * 1024 * 1024);
  EXPECT_EQ(d.mem_bus_bits, 5120);
  EXPECT_EQ(d.mem_clock_khz, 2619000);
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.cc_minor, 0);
  EXPECT_EQ(d.max_threads_per_sm, 2048);
  EXPECT_EQ(d.max_blocks_per_sm, 32);
  EXPECT_TRUE(d.from_profile);
  EXPECT_EQ(d.arch(), "sm_90a");
  EXPECT_NEAR(d.dram_peak_gbs(), 3352.3, 0.1);  // 2 * 2619 MHz * 640 B
}

TEST(DeviceInfo, ArchStrings) {
  DeviceInfo d;
  d.cc_major = 10, d.cc_minor = 0;
  EXPECT_EQ(d.arch(), "sm_100a");
  d.cc_major = 8, d.cc_minor = 9;
  EXPECT_EQ(d.arch(), "sm_89");
  d.cc_major = 8, d.cc_minor = 0;
  EXPECT_EQ(d.arch(), "sm_80");
  d.cc_major = 12, d.cc_minor = 0;
  EXPECT_EQ(d.arch(), "sm_120");
}

TEST(DeviceInfo, CurrentDeviceIsProfileWithoutGpu) {
  const DeviceInfo& d = current_device();
  EXPECT_EQ(d.from_profile, !has_gpu());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.smem_per_block_optin, 48 * 1024);
  std::string s = d.describe();
  EXPECT_NE(s.find(d.arch()), std::string::npos) << s;
  EXPECT_NE(s.find(std::to_string(d.sm_count) + " SMs"), std::string::npos) << s;
  if (d.from_profile) EXPECT_NE(s.find("profile"), std::string::npos) << s;
}
