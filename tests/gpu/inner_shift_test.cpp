// Inner shift plans (KernelParams::shift on held rows) on the GPU against the reference: norms
// of a column slice x = xw[:, off : off + H] whose rows sit at an odd stride (every row at
// another phase), the output and weights keeping 16-byte vectors while x (and a residual) are
// read at their own phases. rms (with and without a weight), layer norms (weight and bias; a
// residual), softmax; f32/f16/bf16; odd sizes, one row, short and long rows; the sweep's sizes
// (seed 9 #144, seed 10 #067); pinned plans (several rows per block, the register prefetch with
// and without tickets, no prefetch). Every output element written (outputs start as NaN),
// replays give the same bits. Run it under compute-sanitizer memcheck too: the shifted pairs
// must never read outside the tensor (the first and last rows' ends go element by element).
#include <gtest/gtest.h>

#include "support/inner_shift_programs.h"

#include "gpu_compare.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"

using namespace solder;
using namespace solder::testing;
using namespace solder::gpu_testing;

namespace {

std::string check(const Fusion& f, const Bindings& b, Layout l, const std::string& what, const std::string& plan = "") {
  return check_against_reference(f, resolve_input_shapes(f, {}, b), l, what, {.seed = 31, .plan = plan});
}

}  // namespace

// x [B, H] laid out as a slice (rows of H + 3: Layout::Sliced), misaligned (one element in: every
// row at the same phase, which phased rows or shift take) or contiguous.
TEST(GpuInnerShift, NormsOfSlicedRows) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const std::string kind : {"rms", "rms_w", "ln_w", "ln_res", "softmax"})
      for (auto [h, rows] : std::vector<std::pair<int64_t, int64_t>>{{1000, 37}, {8, 5}, {40, 300}, {4104, 129}, {2048, 1}, {1001, 9}})
        for (Layout l : {Layout::Sliced, Layout::Misaligned, Layout::Contiguous}) {
          const std::string what = std::string(dtype_name(t)) + " " + kind + " H=" + std::to_string(h) + " B=" + std::to_string(rows) +
                                   " layout " + std::to_string(static_cast<int>(l));
          const std::string launches = check(sliced_norm(t, kind, h, 0, 0), {{"B", rows}}, l, what);
          // Rows that fill the SMs (fewer may split over blocks, which keep aligned vectors).
          if (l == Layout::Sliced && rows >= 132 && h % 8 == 0)
            EXPECT_NE(launches.find(" shift"), std::string::npos) << what << ": " << launches;
        }
}

// Slices inside the program (the sweep's x = xw[:, 1:1 + H] of rows of H + 3, and xw[:, :H] of
// rows of H + 1) at every phase step, and the sweep's own sizes.
TEST(GpuInnerShift, SlicesInTheProgram) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::BF16, DType::F16})
    for (const std::string kind : {"rms", "rms_w", "softmax", "ln_w"})
      for (int64_t off : {0, 1, 2, 3})
        for (auto [h, rows] : std::vector<std::pair<int64_t, int64_t>>{{1000, 200}, {4096, 264}, {16, 7}}) {
          const int64_t w = h + off + (off % 2 ? 2 : 1);
          const std::string what = std::string(dtype_name(t)) + " " + kind + " xw[:, " + std::to_string(off) + ":" +
                                   std::to_string(off + h) + "] of " + std::to_string(w) + " B=" + std::to_string(rows);
          const std::string launches = check(sliced_norm(t, kind, h, off, w), {{"B", rows}}, Layout::Contiguous, what);
          if (rows >= 132) EXPECT_NE(launches.find(" shift"), std::string::npos) << what << ": " << launches;
        }
  // Seed 9 #144 and seed 10 #067 at their sizes.
  std::string a = check(sliced_norm(DType::BF16, "rms", 12288, 1, 12291), {{"B", 1000}}, Layout::Contiguous, "#144");
  EXPECT_NE(a.find(" shift"), std::string::npos) << a;
  std::string b = check(sliced_norm(DType::F32, "rms_w", 16384, 1, 16387), {{"B", 2048}}, Layout::Contiguous, "#067");
  EXPECT_NE(b.find(" shift"), std::string::npos) << b;
}

// Pinned plans over the slice: rows within a warp and across warps, several rows per block, the
// register prefetch with and without tickets (blocks walk several rows), no prefetch.
TEST(GpuInnerShift, PinnedPlans) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::BF16})
    for (const std::string kind : {"rms_w", "ln_res", "softmax"})
      for (const std::string& pin : kInnerShiftPins) {
        const std::string what = std::string(dtype_name(t)) + " " + kind + " pinned " + pin;
        const std::string launches = check(sliced_norm(t, kind, 1000, 1, 1003), {{"B", 301}}, Layout::Contiguous, what, pin);
        EXPECT_NE(launches.find(" shift"), std::string::npos) << what << ": " << launches;
      }
  // The old plan of one element per thread, pinned (the plan grid's baseline).
  check(sliced_norm(DType::BF16, "rms", 12288, 0, 12289), {{"B", 1000}}, Layout::Contiguous, "#144 vec=1",
        "vec=1,threads_per_row=1024,prefetch");
}

// Phased rows at a phase step of one element (odd row lengths, no weights): every row starts at
// another element phase, read and written as 16-byte vectors after a scalar head. bf16/f16 rms
// and softmax, one row to many, rows shorter than a vector; contiguous and one element in.
TEST(GpuInnerShift, PhasedRowsOfOddLength) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::BF16, DType::F16, DType::F32})
    for (const std::string kind : {"rms", "softmax"})
      for (auto [h, rows] : std::vector<std::pair<int64_t, int64_t>>{{4097, 300}, {333, 2049}, {1001, 37}, {9, 500}, {4097, 1}, {3, 200}})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
          const std::string what = std::string(dtype_name(t)) + " " + kind + " H=" + std::to_string(h) + " B=" + std::to_string(rows) +
                                   " layout " + std::to_string(static_cast<int>(l));
          const std::string launches = check(sliced_norm(t, kind, h, 0, 0), {{"B", rows}}, l, what);
          if (l == Layout::Contiguous && rows >= 132 && h >= 333)
            EXPECT_NE(launches.find("phased"), std::string::npos) << what << ": " << launches;
        }
}
