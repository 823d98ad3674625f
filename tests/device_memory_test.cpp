// Device memory pieces that need no GPU: size classes and the no-GPU error.
#include <gtest/gtest.h>

#include "runtime/blas.h"
#include "runtime/device_memory.h"
#include "runtime/driver.h"
#include "solder/error.h"

using namespace solder;

TEST(DeviceMemory, SizeClasses) {
  EXPECT_EQ(round_device_alloc_size(0), 0u);
  EXPECT_EQ(round_device_alloc_size(1), 512u);
  EXPECT_EQ(round_device_alloc_size(512), 512u);
  EXPECT_EQ(round_device_alloc_size(513), 1024u);
  EXPECT_EQ(round_device_alloc_size((1u << 20) - 1), 1u << 20);
  EXPECT_EQ(round_device_alloc_size(1u << 20), 2u << 20);  // from 1 MiB on: 2 MiB multiples
  EXPECT_EQ(round_device_alloc_size((2u << 20) + 1), 4u << 20);
}

TEST(DeviceMemory, EmptyBufferNeedsNoGpu) {
  DeviceBuffer empty;
  EXPECT_EQ(empty.ptr(), 0u);
  DeviceBuffer zero(0);
  EXPECT_EQ(zero.ptr(), 0u);
  DeviceBuffer moved(std::move(zero));
  EXPECT_EQ(moved.bytes(), 0u);
}

TEST(DeviceMemory, NoGpuErrorSaysWhy) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present";
  try {
    DeviceBuffer b(1024);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("needs a GPU"), std::string::npos) << m;
    EXPECT_NE(m.find(driver_unavailable_reason()), std::string::npos) << m;
  }
}

TEST(Blas, ContiguousStrides) {
  MatmulStrides s = contiguous_matmul_strides(4, 5, 6, false, false);
  EXPECT_EQ(s.lda, 6);
  EXPECT_EQ(s.ldb, 5);
  EXPECT_EQ(s.ldc, 5);
  EXPECT_EQ(s.batch_a, 24);
  EXPECT_EQ(s.batch_b, 30);
  EXPECT_EQ(s.batch_c, 20);
  MatmulStrides t = contiguous_matmul_strides(4, 5, 6, true, true);
  EXPECT_EQ(t.lda, 4);
  EXPECT_EQ(t.ldb, 6);
}

TEST(Blas, BadLeadingDimensionIsAClearError) {
  MatmulStrides s = contiguous_matmul_strides(4, 5, 6, false, false);
  s.lda = 3;
  try {
    blas_matmul(DType::F32, 0, 0, 0, 1, 4, 5, 6, s, false, false, nullptr);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lda >= 6"), std::string::npos) << e.what();
  }
  EXPECT_THROW(blas_matmul(DType::I32, 0, 0, 0, 1, 4, 5, 6, contiguous_matmul_strides(4, 5, 6, false, false), false,
                           false, nullptr),
               Error);
}

TEST(Blas, LibraryLoadsOrExplains) {
  // The toolkit on this repository's machines ships libcublasLt.so.13.
  EXPECT_TRUE(blas_available() || !blas_unavailable_reason().empty());
  if (!blas_available()) EXPECT_NE(blas_unavailable_reason().find("libcublasLt"), std::string::npos);
}
