// The reference's recycled value storage: blocks of 1 MB and more come back dirty, so results
// must not depend on what a block held before.
#include <gtest/gtest.h>

#include <cmath>

#include "reference/buffer.h"
#include "solder/fusion.h"
#include "solder/reference.h"

using namespace solder;

TEST(ReferenceBuffer, ZerosAreAskedForAndRecycledBlocksAreReused) {
  constexpr size_t n = (size_t{3} << 20) / sizeof(double) + 5;  // 3 MB and a bit: recycled
  const double* first = nullptr;
  {
    ref::Doubles dirty(n, 7.0);
    first = dirty.data();
  }
  ref::Doubles zeros(n, 0.0);
  EXPECT_EQ(zeros.data(), first) << "a freed block of the same size class is handed out again";
  for (size_t i = 0; i < n; i += 4099) ASSERT_EQ(zeros[i], 0.0) << i;
  EXPECT_EQ(zeros[n - 1], 0.0);
}

TEST(ReferenceBuffer, RepeatedRunsOverDirtyBlocksAgree) {
  // Sums and var_mean accumulate into their result arrays (here 2 MB each: recycled); a later
  // run gets the earlier runs' freed blocks back, dirty.
  Fusion f("columns");
  Tensor x = f.input("x", DType::F32, {3, 262147});
  f.output(sum(mul(x, x), {0}));
  VarMean vm = var_mean(x, {0}, 0);
  f.output(add(vm.var, vm.mean));
  HostTensor in = random_tensor(DType::F32, {3, 262147}, 3);
  auto one = run_reference(f, {in});
  for (int rep = 0; rep < 2; ++rep) {
    auto again = run_reference(f, {in});
    for (size_t o = 0; o < one.size(); ++o)
      for (int64_t i = 0; i < one[o].numel(); i += 97) ASSERT_EQ(again[o].get(i), one[o].get(i)) << o << " " << i;
  }
  // And the values themselves: element 0's sum of squares and var + mean from the inputs.
  double s2 = 0, s1 = 0;
  for (int r = 0; r < 3; ++r) s1 += in.get(r * 262147);
  const double mean = s1 / 3;
  double m2 = 0;
  for (int r = 0; r < 3; ++r) {
    s2 += in.get(r * 262147) * in.get(r * 262147);
    m2 += (in.get(r * 262147) - mean) * (in.get(r * 262147) - mean);
  }
  EXPECT_NEAR(one[0].get(0), s2, 1e-5 * (1 + s2));
  EXPECT_NEAR(one[1].get(0), m2 / 3 + mean, 1e-5 * (1 + std::abs(m2 / 3 + mean)));
}
