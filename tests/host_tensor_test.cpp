// HostTensor layout helpers and random_tensor's guarantees (determinism, range, dtype grid,
// never all zeros).
#include <gtest/gtest.h>

#include "solder/error.h"
#include "solder/host_tensor.h"

using namespace solder;

TEST(HostTensor, EmptyIsContiguousAndZero) {
  HostTensor t = HostTensor::empty(DType::F16, {2, 3});
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.strides, (std::vector<int64_t>{3, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.storage->size(), 12u);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(t.get(i), 0.0);
  t.set(4, 0.1);
  EXPECT_EQ(t.get(4), 0.0999755859375);  // set() rounds to the dtype
  EXPECT_EQ(HostTensor::empty(DType::F32, {}).numel(), 1);
  EXPECT_THROW(HostTensor::empty(DType::F32, {-1}), Error);
  EXPECT_THROW(t.get(6), Error);
}

TEST(HostTensor, StridedViewAndContiguousCopy) {
  HostTensor base = HostTensor::empty(DType::I64, {2, 3});
  for (int64_t i = 0; i < 6; ++i) base.set(i, static_cast<double>(i));
  HostTensor t = base;  // transposed view [3, 2]
  t.shape = {3, 2};
  t.strides = {1, 3};
  EXPECT_FALSE(t.is_contiguous());
  HostTensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  const double want[] = {0, 3, 1, 4, 2, 5};
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(c.get(i), want[i]);
  // Size-1 dims may have any stride and still count as contiguous.
  HostTensor one = HostTensor::empty(DType::F32, {1, 4});
  one.strides = {99, 1};
  EXPECT_TRUE(one.is_contiguous());
  // Writes through a view land in the shared storage.
  t.set(1, 42);
  EXPECT_EQ(base.get(3), 42);
}

TEST(RandomTensor, DeterministicInRangeAndOnTheGrid) {
  HostTensor a = random_tensor(DType::BF16, {64}, 7, -1, 1), b = random_tensor(DType::BF16, {64}, 7, -1, 1),
             c = random_tensor(DType::BF16, {64}, 8, -1, 1);
  bool differs = false;
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_EQ(a.get(i), b.get(i));
    differs = differs || a.get(i) != c.get(i);
    EXPECT_GE(a.get(i), -1);
    EXPECT_LE(a.get(i), 1);
    EXPECT_EQ(round_to(DType::BF16, a.get(i)), a.get(i));
  }
  EXPECT_TRUE(differs);
  HostTensor ints = random_tensor(DType::I32, {200}, 1, -2, 2);
  bool seen[4] = {};
  for (int64_t i = 0; i < 200; ++i) {
    double v = ints.get(i);
    ASSERT_TRUE(v >= -2 && v <= 1) << v;
    seen[static_cast<int>(v) + 2] = true;
  }
  EXPECT_TRUE(seen[0] && seen[1] && seen[2] && seen[3]);
}

TEST(RandomTensor, NeverAllZeros) {
  for (uint64_t seed = 0; seed < 32; ++seed) {
    HostTensor b = random_tensor(DType::Bool, {1}, seed);
    EXPECT_NE(b.get(0), 0) << seed;
  }
  HostTensor z = random_tensor(DType::F32, {4}, 1, 0, 0);
  EXPECT_NE(z.get(0), 0);
  HostTensor tiny = random_tensor(DType::F8E4M3, {8}, 1, -1e-4, 1e-4);  // all underflow to 0 in fp8
  bool any = false;
  for (int64_t i = 0; i < 8; ++i) any = any || tiny.get(i) != 0;
  EXPECT_TRUE(any);
}
