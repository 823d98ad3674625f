// Inner plans with staged inputs (Access::Staged) on the GPU against the reference: norms and a
// softmax of x + r where x is transposed in memory (xt stored [H, B], read through a permute)
// and r and the output are rows. f32/f16/bf16; odd sizes, a row per block short of RPB (B = 37),
// size-1 dims (H = 1, B = 1: not staged, but the same programs), three columns; inputs
// contiguous, one element off alignment, with padded rows (xt's rows padded: x's column step is
// not B), and transposed (x contiguous, r transposed: r read in place); pinned shapes (more and
// fewer rows per block, no prefetch, element reads). Replays give the same bits.
#include <gtest/gtest.h>

#include "support/mixed_layout_norms.h"

#include "gpu_compare.h"
#include "programs/run_inputs.h"
#include "solder/fusion.h"

using namespace solder;
using solder::testing::norm_of_mixed;
using namespace solder::gpu_testing;

namespace {


std::string check(const Fusion& f, const Bindings& sizes, Layout layout, const std::string& what, const std::string& plan = "") {
  std::map<std::string, std::vector<int64_t>> none;
  return check_against_reference(f, resolve_input_shapes(f, none, sizes), layout, what, {.seed = 13, .plan = plan});
}

std::string describe(const Fusion& f, DType t, const Bindings& b, Layout l, const std::string& plan = "") {
  std::string s = f.name() + " " + std::string(dtype_name(t));
  for (const auto& [k, v] : b) s += " " + k + "=" + std::to_string(v);
  return s + " layout " + std::to_string(static_cast<int>(l)) + (plan.empty() ? "" : " plan " + plan);
}

}  // namespace

TEST(GpuInnerStaged, NormsOfTransposedInputs) {
  SKIP_WITHOUT_GPU();
  const std::vector<Bindings> sizes = {{{"B", 16384}, {"H", 770}}, {{"B", 2048}, {"H", 3000}}, {{"B", 37}, {"H", 1030}},
                                       {{"B", 333}, {"H", 4097}},  {{"B", 1000}, {"H", 3}},     {{"B", 129}, {"H", 1}},
                                       {{"B", 1}, {"H", 300}},     {{"B", 8192}, {"H", 770}}};
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const char* kind : {"rms", "rms_plain", "ln", "softmax"})
      for (const Bindings& b : sizes)
        for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced, Layout::Transposed}) {
          if (b.at("B") * b.at("H") > (1 << 22) && l != Layout::Contiguous) continue;  // keep it quick
          const Fusion f = norm_of_mixed(t, kind);
          const std::string what = describe(f, t, b, l);
          const std::string params = check(f, b, l, what);
          if (b.at("H") > 1) EXPECT_NE(params.find("inner-reduction"), std::string::npos) << what << ": " << params;
        }
}

TEST(GpuInnerStaged, PinnedShapes) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::BF16})
    for (const char* plan : {"threads_per_row=64,rows_per_block=4", "threads_per_row=64,rows_per_block=16",
                             "threads_per_row=64,rows_per_block=8,prefetch=0", "threads_per_row=64,rows_per_block=8,prefetch=1",
                             "threads_per_row=64,rows_per_block=8,vec=1", "threads_per_row=32,rows_per_block=8"})
      for (const Bindings& b : {Bindings{{"B", 1000}, {"H", 770}}, Bindings{{"B", 37}, {"H", 1030}}}) {
        const Fusion f = norm_of_mixed(t, "ln");
        check(f, b, Layout::Contiguous, describe(f, t, b, Layout::Contiguous, plan), plan);
      }
}

// Staged outputs: softmax and a plain layer norm over dim 0 of a transposed x, and over the
// middle axis of a transposed x (seed 9 #047), into contiguous outputs; odd sizes, a block's
// rows across K's end (K = 17), size-1 dims; inputs contiguous, misaligned, sliced.
TEST(GpuInnerStaged, NormsIntoTransposedOutputs) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const char* kind : {"softmax", "ln"}) {
      for (const Bindings& b : {Bindings{{"B", 16384}, {"N", 1000}}, Bindings{{"B", 37}, {"N", 1030}}, Bindings{{"B", 333}, {"N", 4097}},
                                Bindings{{"B", 1000}, {"N", 3}}, Bindings{{"B", 1}, {"N", 300}}})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
          // A plain layer norm of 3 f32 values cancels in x - mean: a row of near-equal values
          // differs from the reference in the fourth digit (as eager's f32 would).
          if (b.at("N") < 8 && std::string(kind) == "ln") continue;
          const Fusion f = solder::testing::norm_into_transposed(t, kind, false);
          check(f, b, l, describe(f, t, b, l));
        }
      for (const Bindings& b : {Bindings{{"B", 32}, {"N", 1000}, {"K", 512}}, Bindings{{"B", 3}, {"N", 333}, {"K", 17}},
                                Bindings{{"B", 2}, {"N", 130}, {"K", 1}}, Bindings{{"B", 1}, {"N", 7}, {"K", 4097}}})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
          const Fusion f = solder::testing::norm_into_transposed(t, kind, true);
          check(f, b, l, describe(f, t, b, l));
        }
    }
}
