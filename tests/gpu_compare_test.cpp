// The GPU tests' comparison with the reference (tests/gpu/gpu_compare.h) runs on the CPU: it
// must count every mismatch, report the first ones in order, and honour NaN and the tolerance.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "gpu/gpu_compare.h"

using namespace solder;
using namespace solder::gpu_testing;

TEST(GpuCompare, CountsEveryMismatchAndReportsTheFirstInOrder) {
  HostTensor want = random_tensor(DType::F32, {1000, 3001}, 9);  // 3M elements: every core scans
  HostTensor got = want.contiguous();
  EXPECT_EQ(expect_close(got, want, "same"), 0);
  const std::vector<int64_t> wrong = {17, 2999999, 5, 123456, 700000, 3000999, 42};
  for (int64_t i : wrong) got.set(i, want.get(i) + 1.0);
  got.set(8, want.get(8) * (1 + 1e-6));  // inside the f32 tolerance
  ::testing::TestPartResultArray reported;
  int64_t bad = 0;
  {
    ::testing::ScopedFakeTestPartResultReporter catcher(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &reported);
    bad = expect_close(got, want, "t");
  }
  EXPECT_EQ(bad, static_cast<int64_t>(wrong.size()));
  ASSERT_EQ(reported.size(), 5);
  const std::vector<int64_t> first = {5, 17, 42, 123456, 700000};
  for (int k = 0; k < 5; ++k)
    EXPECT_NE(std::string(reported.GetTestPartResult(k).message()).find("element " + std::to_string(first[k]) + " got"),
              std::string::npos)
        << reported.GetTestPartResult(k).message();
}

TEST(GpuCompare, NanMustMatchNan) {
  HostTensor want = random_tensor(DType::F16, {4, 5}, 2);
  HostTensor got = want.contiguous();
  want.set(3, std::nan(""));
  ::testing::TestPartResultArray reported;
  int64_t bad = 0;
  {
    ::testing::ScopedFakeTestPartResultReporter catcher(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &reported);
    bad = expect_close(got, want, "nan");
  }
  EXPECT_EQ(bad, 1);
  got.set(3, std::nan(""));
  EXPECT_EQ(expect_close(got, want, "nan both"), 0);
}
