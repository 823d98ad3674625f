// CUDA graph capture pieces that need no GPU: the buffers a capture keeps, and the no-GPU error.
#include <gtest/gtest.h>

#include "ops/workloads.h"
#include "runtime/capture_retention.h"
#include "runtime/driver.h"
#include "solder/error.h"
#include "solder/executor.h"

using namespace solder;

TEST(CaptureRetention, KeepsBuffersOnlyWhileInScopeAndNests) {
  auto a = std::make_shared<int>(1), b = std::make_shared<int>(2), c = std::make_shared<int>(3);
  std::vector<std::shared_ptr<void>> outer, inner;
  retain_for_capture(a);  // no capture open: nothing keeps it
  {
    CaptureRetention keep_outer(outer);
    retain_for_capture(a);
    {
      CaptureRetention keep_inner(inner);
      retain_for_capture(b);
      retain_for_capture(nullptr);  // steps without temporaries pass null: not kept
    }
    retain_for_capture(c);  // the outer capture again
  }
  retain_for_capture(c);
  ASSERT_EQ(outer.size(), 2u);
  EXPECT_EQ(outer[0], a);
  EXPECT_EQ(outer[1], c);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(inner[0], b);
}

TEST(Capture, WithoutAGpuSaysWhy) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  Executor ex(make_workload("w5_gelu_bias_bf16"));
  try {
    ex.capture({});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("no GPU: ", 0), 0u) << m;
    EXPECT_NE(m.find(driver_unavailable_reason()), std::string::npos) << m;
  }
}
