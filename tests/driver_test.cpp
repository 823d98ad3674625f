// The driver loads lazily and explains itself when there is no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "runtime/driver.h"
#include "solder/error.h"

using namespace solder;

TEST(Driver, NullWithAReasonOrUsable) {
  const DriverApi* d = driver();
  if (d) {
    EXPECT_TRUE(driver_unavailable_reason().empty());
    EXPECT_NE(d->cuLaunchKernel, nullptr);
    EXPECT_TRUE(has_gpu());
    return;
  }
  EXPECT_FALSE(has_gpu());
  const std::string& why = driver_unavailable_reason();
  EXPECT_FALSE(why.empty());
  // This repository's CI has no NVIDIA driver at all; a machine with SOLDER_DISABLE_GPU set or a
  // broken driver says so instead.
  if (!std::getenv("SOLDER_DISABLE_GPU")) {
    EXPECT_TRUE(why.find("libcuda") != std::string::npos || why.find("cu") == 0) << why;
  }
}

// driver() initializes once per process, so the variable is tested in a fresh child process
// (threadsafe death tests re-execute the binary for just this test).
TEST(Driver, DisableGpuEnvironmentVariable) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("SOLDER_DISABLE_GPU", "1", 1);
        bool ok = driver() == nullptr && !has_gpu() &&
                  driver_unavailable_reason().find("SOLDER_DISABLE_GPU") != std::string::npos;
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(Driver, CheckCudaFormatsKernelAndErrorName) {
  EXPECT_NO_THROW(check_cuda(CUDA_SUCCESS, "anything"));
  try {
    check_cuda(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel", "fused_add_3");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("cuLaunchKernel in kernel fused_add_3: ", 0), 0u) << m;
    // With a driver the name is CUDA_ERROR_INVALID_VALUE; without one, the numeric code.
    EXPECT_TRUE(m.find("CUDA_ERROR_INVALID_VALUE") != std::string::npos || m.find("CUDA error 1") != std::string::npos)
        << m;
  }
  try {
    check_cuda(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find(" in kernel "), std::string::npos);
  }
}

// The names must be the ABI versions cuda.h maps to (checked against a 580-series driver).
TEST(Driver, ResolvesVersionedSymbols) {
  std::vector<std::string> names = driver_symbol_names();
  auto has = [&](const char* n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  for (const char* n : {"cuMemAlloc_v2", "cuMemFree_v2", "cuMemGetInfo_v2", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2",
                        "cuMemcpyDtoDAsync_v2", "cuMemsetD8Async", "cuDeviceTotalMem_v2", "cuDevicePrimaryCtxRetain",
                        "cuStreamDestroy_v2", "cuEventDestroy_v2", "cuStreamBeginCapture_v2",
                        "cuGraphInstantiateWithFlags", "cuGraphExecDestroy", "cuEventElapsedTime_v2",
                        "cuModuleGetFunction", "cuLaunchKernel", "cuGetErrorName", "cuLaunchKernelEx",
                        "cuOccupancyMaxActiveClusters"})
    EXPECT_TRUE(has(n)) << n;
  EXPECT_FALSE(has("cuMemAlloc"));
  EXPECT_FALSE(has("cuGraphInstantiate"));
  EXPECT_EQ(names.size(), 44u);
  EXPECT_EQ(sizeof(DriverApi), names.size() * sizeof(void*));  // every member is resolved
}
