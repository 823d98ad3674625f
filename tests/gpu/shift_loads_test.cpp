// Shift plans (KernelParams::shift) on the GPU against the reference: pointwise kernels that keep
// the output's vectors while reading each input at its own phase (RoPE over head dims whose
// halves start off alignment, the halves of a view into wider rows at every offset, rows padded
// to odd strides). f32/f16/bf16; odd sizes, size-1 dims, padded rows and misaligned inputs; every
// output element written (outputs start as NaN), replays give the same bits. Run it under
// compute-sanitizer memcheck too: the shifted pairs must never read outside a row or a pad's
// window.
#include <gtest/gtest.h>

#include "support/shift_programs.h"

#include "gpu_compare.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"

using namespace solder;
using namespace solder::testing;
using namespace solder::gpu_testing;

namespace {

std::string check(const Fusion& f, const Bindings& b, Layout l, const std::string& what, const std::string& plan = "") {
  return check_against_reference(f, resolve_input_shapes(f, {}, b), l, what, {.seed = 29, .plan = plan});
}

}  // namespace

TEST(GpuShiftLoads, RopeOverHalvesAtEveryPhase) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    // Halves of 2049, 65, 9 (phase 1), 10 (2), 11 (3), 4 (4), 13 (5), 6 (6), 15 (7), 2048, 3.
    for (int64_t k : {4098, 130, 18, 20, 22, 8, 26, 12, 30, 4096, 6})
      for (const Bindings& b : std::vector<Bindings>{{{"B", 3}, {"M", 8}}, {{"B", 1}, {"M", 1}}, {{"B", 16}, {"M", 100}}})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
          if (b.at("B") == 16 && k != 4098 && k != 130) continue;  // the large size at two head dims
          const std::string what = std::string(dtype_name(t)) + " rope K=" + std::to_string(k) + sizes_text(b) + " layout " +
                                   std::to_string(static_cast<int>(l));
          const std::string launches = check(rope_halves(t, k), b, l, what);
          if (l == Layout::Contiguous && k == 4098 && t != DType::F32 && b.at("B") > 1)
            EXPECT_NE(launches.find(" shift"), std::string::npos) << what << ": " << launches;
        }
}

TEST(GpuShiftLoads, HalvesOfAViewAtEveryOffset) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (int64_t h : {1024, 333, 8})
      for (int64_t off : {0, 1, 2, 3, 5, 7})
        for (int64_t rows : {9, 1})
          for (Layout l : {Layout::Contiguous, Layout::Sliced}) {
            const bool gelu = off % 2 == 1, swap = off >= 3;
            const Bindings b{{"B", rows}, {"W", 2 * h + off + 3}};
            const std::string what = std::string(dtype_name(t)) + " halves h=" + std::to_string(h) + " off " + std::to_string(off) +
                                     sizes_text(b) + " layout " + std::to_string(static_cast<int>(l));
            check(gated_halves(t, h, off, gelu, swap), b, l, what);
          }
}

TEST(GpuShiftLoads, PaddedRowsAndPins) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    for (const Bindings& b : std::vector<Bindings>{{{"B", 64}, {"H", 4096}}, {{"B", 3}, {"H", 1000}}, {{"B", 5}, {"H", 8}},
                                                   {{"B", 7}, {"H", 1}}, {{"B", 1}, {"H", 4104}}})
      for (Layout l : {Layout::Sliced, Layout::Misaligned, Layout::Contiguous}) {
        const std::string what = std::string(dtype_name(t)) + " padded product" + sizes_text(b) + " layout " +
                                 std::to_string(static_cast<int>(l));
        check(padded_product(t), b, l, what);
      }
    // Pinned shift plans where every row is aligned (the one-vector branch) and where the pieces
    // are (halves of 2048: every pad's window divides the vectors).
    const std::string tn(dtype_name(t));
    const std::string v = t == DType::F32 ? "vec=4" : "vec=8";
    std::string launches = check(padded_product(t), {{"B", 64}, {"H", 4096}}, Layout::Contiguous, tn + " pinned aligned",
                                 v + ",unroll=1,one_row=0,col_vec=0,shift=1");
    EXPECT_NE(launches.find(" shift"), std::string::npos) << launches;
    launches = check(rope_halves(t, 4096), {{"B", 4}, {"M", 33}}, Layout::Contiguous, tn + " pinned rope 4096",
                     v + ",unroll=1,one_row=0,col_vec=0,shift=1");
    EXPECT_NE(launches.find(" shift"), std::string::npos) << launches;
  }
}

// The sweep's programs at their sizes: seed 7 #123 (f16 16x1000x4098) and #141 (bf16 2048x2048
// halves of a view one element into rows of 2051), seed 6 #131 (f16 2048x12288 of 12291).
TEST(GpuShiftLoads, TheSweepsShapes) {
  SKIP_WITHOUT_GPU();
  std::string launches = check(rope_halves(DType::F16, 4098), {{"B", 16}, {"M", 1000}}, Layout::Contiguous, "#123");
  EXPECT_NE(launches.find(" shift"), std::string::npos) << launches;
  launches = check(gated_halves(DType::BF16, 1024, 1, true, true), {{"B", 2048}, {"W", 2051}}, Layout::Contiguous, "#141");
  EXPECT_NE(launches.find(" shift"), std::string::npos) << launches;
  launches = check(gated_halves(DType::F16, 6144, 1, true, false), {{"B", 2048}, {"W", 12291}}, Layout::Contiguous, "#131");
  EXPECT_NE(launches.find(" shift"), std::string::npos) << launches;
}
