// Cats of pieces of symbolic sizes read in one kernel (issue 26, passes/cat_pieces.cpp): the
// pads' and windows' bounds are runtime scalars of the kernel's parameters (`p.bound[i]`),
// evaluated from the launch's sizes. On the GPU against the reference: rotate-half RoPE over a
// symbolic head dim (seed 6 #031), cat(cast(a), cast(b * 2)) along either axis (seed 7 #106),
// three pieces with a broadcast leaf, pieces along a leading axis, strided halves swapped; odd
// and empty pieces, size-1 dims, every layout; outputs poisoned first, replays give the same
// bits, no cat copies. One executor runs several sizes through one compiled kernel.
#include <gtest/gtest.h>

#include "support/symbolic_cat_programs.h"

#include "gpu_compare.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"

using namespace solder;
using namespace solder::testing;
using namespace solder::gpu_testing;

namespace {

constexpr Layout kLayouts[] = {Layout::Contiguous, Layout::Sliced, Layout::Misaligned, Layout::Transposed};

// Checks f against the reference; no launch may be a copy (the cat is read as pieces).
std::string check(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, Layout layout, const std::string& what) {
  const std::string launches = check_against_reference(f, shapes, layout, what, {.seed = 31});
  EXPECT_EQ(launches.find("solder_copy_cat"), std::string::npos) << what << ": " << launches;
  return launches;
}

std::string layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Transposed: return "transposed";
    case Layout::Sliced: return "sliced";
    case Layout::Misaligned: return "misaligned";
  }
  return "?";
}

}  // namespace

TEST(GpuSymbolicCat, RopeOverASymbolicHeadDim) {
  SKIP_WITHOUT_GPU();
  for (const char* dt : {"f32", "bf16", "f16"}) {
    const Fusion f = rope_sym(dt, 64);
    // Pieces K-64 and 64: 64 and 64, 66 (vectors of 2), 65 (shifted vectors), 1, none (K=40: x2 is
    // empty and x1 is min(K, 64) = 40), and K = 1.
    for (int64_t k : {128, 130, 129, 65, 40, 1})
      for (auto [b, m] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 7}, {16, 64}})
        for (Layout l : kLayouts) {
          const std::string what = std::string(dt) + " rope K=" + std::to_string(k) + " B=" + std::to_string(b) +
                                   " M=" + std::to_string(m) + " " + layout_name(l);
          const std::string launches = check(f, {{b, m, k}, {m, k}, {m, k}}, l, what);
          // Odd halves: element by element, or vectors read at each piece's own phase (shift).
          if (l == Layout::Contiguous && k == 129)
            EXPECT_TRUE(launches.find("vec=1 ") != std::string::npos || launches.find(" shift") != std::string::npos)
                << what << ": " << launches;
          if (l == Layout::Contiguous && k == 128 && std::string(dt) == "f32")
            EXPECT_NE(launches.find("vec=4"), std::string::npos) << what << ": " << launches;
        }
  }
  // Seed 6 #031's size: one kernel in vectors of 4.
  const std::string launches = check(rope_sym("f32", 256), {{64, 1000, 512}, {1000, 512}, {1000, 512}}, Layout::Contiguous, "#031");
  EXPECT_NE(launches.find("vec=4"), std::string::npos) << launches;
}

// One executor, several head dims: each size's launch program passes its own bounds to the
// kernel (the same compiled kernel where the vectors are the same).
TEST(GpuSymbolicCat, OneExecutorManySizes) {
  SKIP_WITHOUT_GPU();
  const Fusion f = rope_sym("bf16", 64);
  Executor ex(f);
  for (int64_t k : {128, 256, 1024, 130, 128, 200}) {
    const std::vector<std::vector<int64_t>> shapes{{5, 9, k}, {9, k}, {9, k}};
    const std::vector<HostTensor> in = make_random_inputs(f, shapes, 5);
    std::vector<DeviceTensor> din;
    for (const auto& h : in) din.push_back(upload(h, Layout::Contiguous));
    const auto want = run_reference(f, in);
    const auto got = ex.run(din);
    ASSERT_EQ(got.size(), want.size());
    expect_close(to_host(got[0]), want[0], "K=" + std::to_string(k));
  }
}

TEST(GpuSymbolicCat, CatOfCasts) {
  SKIP_WITHOUT_GPU();
  for (const char* dt : {"f32", "bf16", "f16"})
    for (int axis : {0, 1}) {
      const Fusion f = cat_cast(dt, axis);
      for (auto [b, h] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {37, 33}, {5, 4096}, {3, 130}})
        for (Layout l : kLayouts)
          check(f, {{b, h}, {b, h}}, l,
                std::string(dt) + " cat_cast axis " + std::to_string(axis) + " B=" + std::to_string(b) + " H=" + std::to_string(h) +
                    " " + layout_name(l));
    }
  // Seed 7 #106's size: one kernel in vectors of 4.
  const std::string launches = check(cat_cast("f32", 1), {{16384, 128}, {16384, 128}}, Layout::Contiguous, "#106");
  EXPECT_NE(launches.find("vec=4"), std::string::npos) << launches;
}

TEST(GpuSymbolicCat, PiecesAlongEitherAxisAndStrided) {
  SKIP_WITHOUT_GPU();
  const Fusion three = three_sym(), lead = lead_sym(), swap = swap_strided();
  for (Layout l : kLayouts) {
    const std::string ln = " " + layout_name(l);
    for (auto [h, w] : std::vector<std::pair<int64_t, int64_t>>{{5, 16}, {1, 1}, {8, 8}, {33, 4}, {1024, 512}})
      for (int64_t b : {1, 37})
        check(three, {{b, h}, {b, w}, {b, 3}, {b, 1}}, l,
              "three H=" + std::to_string(h) + " W=" + std::to_string(w) + " B=" + std::to_string(b) + ln);
    for (auto [a, c, h] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{3, 4, 10}, {1, 1, 1}, {5, 2, 33}, {64, 100, 4096}})
      check(lead, {{a, h}, {c, h}}, l, "lead A=" + std::to_string(a) + " C=" + std::to_string(c) + " H=" + std::to_string(h) + ln);
    for (int64_t h : {1, 2, 7, 64, 4097}) check(swap, {{3, h}}, l, "swap H=" + std::to_string(h) + ln);
  }
}
