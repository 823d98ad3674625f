// Horizontal fusion on the GPU (issue 26): stacked launches against the reference, with the
// launch count each program must reach: W3 (16 norms writing their cat pieces in place) at odd
// batch sizes, members of different sizes and slice offsets, misaligned inputs, pointwise
// members of different shapes, and full reductions whose per-member scratch must reset
// between calls.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu_compare.h"
#include "ir/parser.h"
#include "ops/workloads.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"
#include "support/flat_programs.h"

using namespace solder;
using namespace solder::gpu_testing;

namespace {

// Runs f three times (into poisoned outputs, then twice allocating its own) against the
// reference; returns the kernel launches of the last run (views and matmuls aside) and
// whether one of them was stacked.
int check(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, Layout layout, const std::string& what,
          bool* stacked = nullptr) {
  std::vector<HostTensor> in = make_random_inputs(f, shapes, 11);
  std::vector<DeviceTensor> din;
  for (const auto& h : in) din.push_back(upload(h, layout));
  const auto want = run_reference(f, in);
  Executor ex(f);
  std::vector<DeviceTensor> outs;
  for (const auto& w : want) outs.push_back(poisoned_output(w.dtype, w.shape));
  ex.run(din, nullptr, &outs);
  for (size_t i = 0; i < want.size(); ++i) expect_close(to_host(outs[i]), want[i], what + " output " + std::to_string(i));
  for (int rep = 0; rep < 2; ++rep) {
    auto again = ex.run(din);
    for (size_t i = 0; i < want.size(); ++i)
      expect_close(to_host(again[i]), want[i], what + " (replay " + std::to_string(rep) + ") output " + std::to_string(i));
  }
  int kernels = 0;
  bool any = false;
  for (const LaunchRecord& r : ex.last_launches()) {
    kernels += r.category != "view" && r.category != "matmul";
    any |= r.name.rfind("solder_group", 0) == 0;
  }
  if (stacked) *stacked = any;
  return kernels;
}

}  // namespace

// W3: the sixteen norms in one launch, the relu in another, the matmul beside them.
TEST(GpuHorizontalFusion, W3SplitStack) {
  SKIP_WITHOUT_GPU();
  Fusion f = make_workload("w3_split_stack");
  for (int64_t b : {1, 37, 1024})
    for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
      std::map<std::string, std::vector<int64_t>> none;
      auto shapes = resolve_input_shapes(f, none, {{"B", b}});
      bool stacked = false;
      EXPECT_EQ(check(f, shapes, l, "w3 B=" + std::to_string(b), &stacked), 2) << "B=" << b;
      EXPECT_TRUE(stacked);
    }
}

// Slices of different lengths at different offsets (rows not 16-byte aligned): members of
// different sizes share one group kernel.
TEST(GpuHorizontalFusion, SlicesOfDifferentSizesAndOffsets) {
  SKIP_WITHOUT_GPU();
  Fusion f = parse_fusion(R"(fusion sizes {
  input x: f32[B, 6, H]
  t0 = slice(x, axis=1, start=0, end=1, step=1)
  t1 = slice(x, axis=1, start=1, end=4, step=1)
  t2 = slice(x, axis=1, start=4, end=6, step=1)
  v0, m0 = var_mean(t0, axes=[2], keepdim=true, correction=0)
  v1, m1 = var_mean(t1, axes=[2], keepdim=true, correction=0)
  v2, m2 = var_mean(t2, axes=[2], keepdim=true, correction=0)
  d0 = sub(t0, m0)
  d1 = sub(t1, m1)
  d2 = sub(t2, m2)
  e = constant(value=1e-5, dtype=f32)
  a0 = add(v0, e)
  a1 = add(v1, e)
  a2 = add(v2, e)
  r0 = rsqrt(a0)
  r1 = rsqrt(a1)
  r2 = rsqrt(a2)
  y0 = mul(d0, r0)
  y1 = mul(d1, r1)
  y2 = mul(d2, r2)
  c = cat(y0, y1, y2, axis=1)
  output c
}
)");
  for (int64_t h : {77, 256, 1030})
    for (int64_t b : {1, 37})
      for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
        bool stacked = false;
        const int k = check(f, {{b, 6, h}}, l, "sizes B=" + std::to_string(b) + " H=" + std::to_string(h), &stacked);
        EXPECT_LE(k, 3) << "H=" << h;  // members whose plans differ (a row count, a phase) launch apart
        if (l == Layout::Contiguous) EXPECT_TRUE(stacked) << "H=" << h;
      }
}

// Small pointwise kernels of one structure over inputs of different shapes: one launch.
TEST(GpuHorizontalFusion, PointwiseMembersOfDifferentShapes) {
  SKIP_WITHOUT_GPU();
  const Fusion f = solder::testing::tanh_of_three_shapes();
  for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Transposed}) {
    bool stacked = false;
    const int k = check(f, {{1000, 33}, {7, 1}, {1, 513}}, l, "pointwise", &stacked);
    if (l == Layout::Contiguous) {
      EXPECT_EQ(k, 1);
      EXPECT_TRUE(stacked);
    }
  }
}

// Full reductions keep a counter per member: stacked, every call still finishes each member's
// scalar and resets its own counter.
TEST(GpuHorizontalFusion, FullReductionsResetTheirScratch) {
  SKIP_WITHOUT_GPU();
  Fusion f = parse_fusion(R"(fusion sums {
  input x1: f32[A, 40]
  input x2: f32[B, 3]
  s1 = sum(x1, axes=[0, 1], keepdim=false)
  s2 = sum(x2, axes=[0, 1], keepdim=false)
  output s1
  output s2
}
)");
  for (int64_t a : {1, 4097}) {
    bool stacked = false;
    EXPECT_EQ(check(f, {{a, 40}, {999, 3}}, Layout::Contiguous, "sums A=" + std::to_string(a), &stacked), 1);
    EXPECT_TRUE(stacked);
  }
}
