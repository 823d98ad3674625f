// Few long rows split over several blocks (KernelParams::row_split: partials through scratch;
// or a cluster) on the GPU against the reference: layer/rms/group norms, softmax (two
// exchanges), var_mean (correction 1 and 0), sum/max/min with an epilogue and NaN/inf rows;
// rows 1, 2, 3, 64, row lengths 4097 x 100 and 1000 x 1024 + 1, size-1 dims, f32/f16/bf16,
// padded-row and misaligned inputs; three runs give the same bits (the counters reset, so no
// memset between launches); reductions over several axes of permuted inputs. CPU tier:
// tests/split_rows_test.cpp, tests/reduction_order_test.cpp.
#include <gtest/gtest.h>

#include "support/split_rows_programs.h"

#include <cmath>
#include <cstring>
#include <functional>

#include "gpu_compare.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"

using namespace solder;
using namespace solder::testing;
using namespace solder::gpu_testing;

namespace {

// Runs f (outputs poisoned first) three times against the reference; the runs agree bit for
// bit. `edit` changes the random inputs first (NaN/inf). Returns the launches' parameters.
std::string check(const Fusion& f, const Bindings& sizes, Layout layout, const std::string& what,
                  const std::function<void(std::vector<HostTensor>&)>& edit = {}, const std::string& plan = "") {
  std::map<std::string, std::vector<int64_t>> none;
  return check_against_reference(f, resolve_input_shapes(f, none, sizes), layout, what, {.seed = 11, .plan = plan, .edit = edit});
}

std::string describe(const std::string& name, DType t, const Bindings& b, Layout l) {
  std::string s = name + " " + std::string(dtype_name(t));
  for (const auto& [k, v] : b) s += " " + k + "=" + std::to_string(v);
  return s + " layout " + std::to_string(static_cast<int>(l));
}

bool split(const std::string& params) {
  return params.find("row_split=") != std::string::npos || params.find("cluster=") != std::string::npos;
}

const std::vector<DType> kTypes = {DType::F32, DType::F16, DType::BF16};

}  // namespace

// Row programs of few long rows: every kind, rows 1, 2, 3 of 1000 x 1024 + 1 and 409,700
// elements, contiguous, padded and misaligned inputs. Each takes a split plan.
TEST(GpuSplitRows, RowPrograms) {
  SKIP_WITHOUT_GPU();
  const std::vector<Bindings> sizes = {{{"B", 1}, {"H", 1000 * 1024 + 1}}, {{"B", 2}, {"H", 1000 * 1024 + 1}},
                                       {{"B", 3}, {"H", 409700}}};
  for (DType t : kTypes)
    for (const char* kind : {"layer_norm", "rms_norm", "softmax", "var_mean", "var0", "sum_max_min"})
      for (const Bindings& b : sizes)
        for (Layout l : {Layout::Contiguous, Layout::Sliced, Layout::Misaligned}) {
          // Padded and misaligned rows (vectors of one element) at the even length only.
          if (l != Layout::Contiguous && b.at("H") % 2) continue;
          const std::string what = describe(kind, t, b, l);
          const std::string params = check(split_row_program(t, kind), b, l, what);
          if (l == Layout::Contiguous) EXPECT_TRUE(split(params)) << what << ": " << params;
        }
}

// The sweep's cases: group norm f32 [2, 1000, 1024] (seed 3 #111) and var over [1, 2] of bf16
// [64, 100, 4097] (seed 4 #045), odd and size-1 sizes, a layer norm of 16 rows of 2^20.
TEST(GpuSplitRows, SweepCases) {
  SKIP_WITHOUT_GPU();
  for (DType t : kTypes) {
    for (const Bindings& b : std::vector<Bindings>{{{"N", 2}, {"G", 1000}, {"H", 1024}},
                                                   {{"N", 3}, {"G", 7}, {"H", 100003}},
                                                   {{"N", 1}, {"G", 1}, {"H", 1000 * 1024 + 1}},
                                                   {{"N", 32}, {"G", 1000}, {"H", 333}}}) {  // seed 5 #141: a spilled cluster's fallback
      const std::string what = describe("group_norm", t, b, Layout::Contiguous);
      EXPECT_TRUE(split(check(split_group_norm(t), b, Layout::Contiguous, what))) << what;
    }
    for (const Bindings& b : std::vector<Bindings>{{{"B", 64}, {"M", 100}, {"K", 4097}}, {{"B", 5}, {"M", 1}, {"K", 1000 * 1024 + 1}}})
      for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
        const std::string what = describe("var12", t, b, l);
        const std::string params = check(split_var12(t), b, l, what);
        if (l == Layout::Contiguous) EXPECT_TRUE(split(params)) << what << ": " << params;
      }
  }
  const Bindings b = {{"B", 16}, {"H", 1 << 20}};
  const std::string what = describe("layer_norm", DType::F32, b, Layout::Contiguous);
  EXPECT_TRUE(split(check(split_row_program(DType::F32, "layer_norm"), b, Layout::Contiguous, what))) << what;
}

// Plain reductions of permuted inputs (seed 9 #038, #128: General rows streamed over the grid),
// odd sizes and size-1 dims, contiguous and misaligned storage. Where the transpose scheduler's
// tiles reduce the permuted input instead (coalesced reads, no split), that plan is as good.
TEST(GpuSplitRows, PlainReductionsOfPermutedInputs) {
  SKIP_WITHOUT_GPU();
  for (DType t : kTypes)
    for (const Bindings& b : std::vector<Bindings>{{{"B", 32}, {"M", 1000}, {"K", 512}}, {{"B", 32}, {"M", 128}, {"K", 4097}},
                                                   {{"B", 7}, {"M", 33}, {"K", 5001}}, {{"B", 1}, {"M", 1}, {"K", 300001}}})
      for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
        const std::string what = describe("perm_amin_abs", t, b, l);
        const std::string params = check(perm_amin_abs(t), b, l, what);
        if (l == Layout::Contiguous) EXPECT_TRUE(split(params) || params.find(" transpose ") != std::string::npos) << what << ": " << params;
        const std::string what2 = describe("perm_mean_mul", t, b, l);
        const std::string params2 = check(perm_mean_mul(t), b, l, what2);
        if (l == Layout::Contiguous) EXPECT_TRUE(split(params2) || params2.find(" transpose ") != std::string::npos) << what2 << ": " << params2;
      }
}

// Reductions over several axes of permuted inputs, walked in the dominant input's memory order
// (inner_reduction_order; CPU tier: tests/reduction_order_test.cpp): var_mean with keepdim, a
// mean of a product of two permuted inputs, amin, a norm's element output (contiguous, written
// General along the memory-ordered columns), four dims, and a kept dim innermost (declared
// order); few long rows (split) and many short ones, odd sizes, size-1 dims, misaligned storage.
TEST(GpuSplitRows, ReductionsOverSeveralAxesOfPermutedInputs) {
  SKIP_WITHOUT_GPU();
  for (DType t : kTypes) {
    for (const Bindings& b : std::vector<Bindings>{{{"B", 32}, {"M", 128}, {"K", 4097}}, {{"B", 4096}, {"M", 8}, {"K", 33}},
                                                   {{"B", 7}, {"M", 33}, {"K", 501}}, {{"B", 3}, {"M", 1}, {"K", 1001}},
                                                   {{"B", 1}, {"M", 64}, {"K", 1}}})
      for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
        check(perm_amin_abs(t), b, l, describe("perm_amin_abs", t, b, l));
        for (const char* kind : {"mean_mul_pp", "var_keep", "norm", "sum_02"})
          check(perm_reduction(t, kind), b, l, describe(std::string("perm_") + kind, t, b, l));
      }
    for (const Bindings& b : std::vector<Bindings>{{{"A", 6}, {"B", 64}, {"C", 5}, {"D", 301}}, {{"A", 2}, {"B", 3}, {"C", 1}, {"D", 7}}})
      check(perm_reduction(t, "sum4"), b, Layout::Contiguous, describe("perm_sum4", t, b, Layout::Contiguous));
  }
  // #128's plan reads x as vector runs.
  const std::string params = check(perm_amin_abs(DType::F32), {{"B", 32}, {"M", 128}, {"K", 4097}}, Layout::Contiguous, "perm_amin_abs f32 #128");
  EXPECT_NE(params.find("vec=4 "), std::string::npos) << params;
}

// NaN and inf propagate through the exchanges: row 0 has a NaN (in the middle of a later
// block's share), row 1 +inf and -inf, row 2 is finite.
TEST(GpuSplitRows, NanAndInfPropagate) {
  SKIP_WITHOUT_GPU();
  for (DType t : kTypes) {
    const Bindings b = {{"B", 3}, {"H", 1000 * 1024 + 1}};
    const int64_t H = b.at("H");
    auto edit = [&](std::vector<HostTensor>& in) {
      in[0].set(H / 2 + 17, NAN);
      in[0].set(H + H - 3, INFINITY);
      in[0].set(H + 5, -INFINITY);
    };
    const std::string what = describe("sum_max_min nan/inf", t, b, Layout::Contiguous);
    EXPECT_TRUE(split(check(split_row_program(t, "sum_max_min"), b, Layout::Contiguous, what, edit))) << what;
    const std::string what2 = describe("softmax nan/inf", t, b, Layout::Contiguous);
    check(split_row_program(t, "softmax"), b, Layout::Contiguous, what2, edit);
  }
}

// Plans pinned by hand: many rows split (several waves of blocks taking their rows by ticket),
// a split of short rows, streamed shares, blocks of 128 threads.
TEST(GpuSplitRows, PinnedPlans) {
  SKIP_WITHOUT_GPU();
  for (const SplitPin& c : split_row_pins()) {
    const std::string what = describe(std::string(c.kind) + " [" + c.plan + "]", c.t, c.sizes, Layout::Contiguous);
    const std::string params = check(split_row_program(c.t, c.kind), c.sizes, Layout::Contiguous, what, {}, c.plan);
    EXPECT_NE(params.find("row_split="), std::string::npos) << what << ": " << params;
  }
}
