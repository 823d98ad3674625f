// Outer persistent normalizations on the GPU against the reference: softmax over dim 0 (held
// rows, and re-read rows for tall inputs), masked/scaled softmax and log_softmax over the middle
// axis, layer and rms norms of transposed views (outputs staged through shared memory), a
// reduction over two axes of a permuted view; the reduced rows split over thread-block
// clusters of 2 to 16 blocks (the scheduler's and pinned plans, blocks without rows, held and
// re-read rows; held rows in shared memory); a contiguous residual beside a transposed input
// (read General); f32/f16/bf16, odd sizes, size-1 dims, padded-row, transposed and misaligned
// inputs; replays give the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "gpu_compare.h"
#include "ops/workloads.h"
#include "programs/run_inputs.h"
#include "support/outer_norm_programs.h"
#include "solder/reference.h"

using namespace solder;
using solder::testing::norm_of_transposed;
using solder::testing::norm_of_transposed_res;
using solder::testing::softmax_over;
using namespace solder::gpu_testing;

namespace {

// Runs f (outputs poisoned first) three times through the cached launch program against the
// reference; the runs agree bit for bit. Returns the launches' categories and parameters.
std::string check(const Fusion& f, const Bindings& sizes, Layout layout, const std::string& what,
                  const std::string& plan = "") {
  std::map<std::string, std::vector<int64_t>> none;
  return check_against_reference(f, resolve_input_shapes(f, none, sizes), layout, what, {.seed = 7, .plan = plan});
}

std::string describe(const std::string& name, DType t, const Bindings& b, Layout l) {
  std::string s = name + " " + std::string(dtype_name(t));
  for (const auto& [k, v] : b) s += " " + k + "=" + std::to_string(v);
  return s + " layout " + std::to_string(static_cast<int>(l));
}

const std::vector<DType> kTypes = {DType::F32, DType::F16, DType::BF16};
const std::vector<Layout> kLayouts = {Layout::Contiguous, Layout::Misaligned, Layout::Sliced, Layout::Transposed};

}  // namespace

// Softmax and log_softmax over dim 0: the f32 8192 x 4096, odd, size-1 and tall sizes
// (100003 rows: re-read), every layout (transposed: a row softmax, inner).
TEST(GpuOuterNorm, SoftmaxOverDimZero) {
  SKIP_WITHOUT_GPU();
  const std::vector<Bindings> sizes = {{{"B", 8192}, {"M", 4096}}, {{"B", 37}, {"M", 1030}}, {{"B", 1}, {"M", 12}},
                                       {{"B", 129}, {"M", 1}},     {{"B", 100003}, {"M", 64}}, {{"B", 5}, {"M", 3}}};
  for (DType t : kTypes)
    for (bool log : {false, true})
      for (const Bindings& b : sizes)
        for (Layout l : kLayouts) {
          if (b.at("B") * b.at("M") > (1 << 22) && (l != Layout::Contiguous || t != DType::F32)) continue;  // keep it quick
          const std::string what = describe(log ? "log_softmax dim0" : "softmax dim0", t, b, l);
          const std::string params = check(softmax_over(t, 2, 0, log, false), b, l, what);
          if (l == Layout::Contiguous && b.at("B") > 1 && b.at("M") > 1)
            EXPECT_NE(params.find("outer-reduction"), std::string::npos) << what << ": " << params;
        }
}

// Over the middle axis: the masked, scaled f16 16 x 128 x 4097; log_softmax; odd and
// size-1 sizes.
TEST(GpuOuterNorm, SoftmaxOverTheMiddleAxis) {
  SKIP_WITHOUT_GPU();
  const std::vector<Bindings> sizes = {{{"B", 16}, {"M", 128}, {"K", 4097}}, {{"B", 64}, {"M", 100}, {"K", 1024}},
                                       {{"B", 3}, {"M", 17}, {"K", 333}},    {{"B", 1}, {"M", 1000}, {"K", 8}},
                                       {{"B", 2}, {"M", 1}, {"K", 5}},       {{"B", 7}, {"M", 3000}, {"K", 1}},
                                       {{"B", 64}, {"M", 3}, {"K", 333}},    {{"B", 5}, {"M", 2}, {"K", 1000}}};  // few rows
  for (DType t : kTypes)
    for (int variant = 0; variant < 3; ++variant)
      for (const Bindings& b : sizes)
        for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
          const bool log = variant == 1, mask = variant == 2;
          const std::string what = describe(log ? "log_softmax mid" : mask ? "masked softmax mid" : "softmax mid", t, b, l);
          const std::string params = check(softmax_over(t, 3, 1, log, mask), b, l, what);
          if (l == Layout::Contiguous && b.at("M") > 1 && b.at("K") > 1)
            EXPECT_NE(params.find("outer-reduction"), std::string::npos) << what << ": " << params;
        }
}

// Norms over the rows of a transposed view: the layer norm of a transposed fp16
// 5120 x 6144 (the transpose of a 6144 x 5120 tensor), rms norm f32 2048 x 16384 (re-read
// rows), f16 rows of 770 (inner, staged), odd sizes and a single row.
TEST(GpuOuterNorm, NormsOfTransposedViews) {
  SKIP_WITHOUT_GPU();
  const std::vector<Bindings> sizes = {{{"B", 5120}, {"H", 6144}}, {{"B", 2048}, {"H", 16384}}, {{"B", 77}, {"H", 301}},
                                       {{"B", 8}, {"H", 3}},       {{"B", 1}, {"H", 999}},      {{"B", 4099}, {"H", 770}}};
  for (DType t : kTypes)
    for (bool rms : {false, true})
      for (const Bindings& b : sizes)
        for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
          if (b.at("B") * b.at("H") > (1 << 24) && l != Layout::Contiguous) continue;
          const std::string what = describe(rms ? "rms_norm T" : "layer_norm T", t, b, l);
          const std::string params = check(norm_of_transposed(t, rms), b, l, what);
          // Shorter rows whose tile of x fits shared memory go to inner, staged (the CPU test
          // TransposedNormsOfShortRowsGoToInnerStaged): both forms are checked here.
          if (b.at("B") > 1 && b.at("H") >= 16384 && l == Layout::Contiguous)
            EXPECT_NE(params.find("outer-reduction"), std::string::npos) << what << ": " << params;
        }
}

// A contiguous residual beside a transposed input (seed 7 #068): the residual read General,
// element by element, in the scheduler's plans (re-read rows at 1024 x 16384) and pinned held
// plans in clusters of 16; odd and size-1 sizes, every layout (transposed: x along the rows
// read General, r Full); rows under 15000 stay with inner (x staged).
TEST(GpuOuterNorm, NormOfTransposedPlusResidual) {
  SKIP_WITHOUT_GPU();
  const std::vector<Bindings> sizes = {{{"B", 1024}, {"H", 16384}}, {{"B", 77}, {"H", 15001}}, {{"B", 64}, {"H", 20000}},
                                       {{"B", 8}, {"H", 3}}, {{"B", 1}, {"H", 999}}, {{"B", 64}, {"H", 3000}}};
  for (DType t : kTypes)
    for (const Bindings& b : sizes)
      for (Layout l : kLayouts) {
        if (b.at("B") * b.at("H") > (1 << 22) && l != Layout::Contiguous) continue;
        const std::string what = describe("layer_norm T + r", t, b, l);
        const std::string params = check(norm_of_transposed_res(t), b, l, what);
        // Inner takes the rest: it stages x where its 16-byte runs of rows fit shared memory,
        // and reads it element by element where those reads' sectors fit L2 (B x H x 32 bytes).
        if (b.at("B") * b.at("H") * 32 > (int64_t{64} << 20) && l == Layout::Contiguous)
          EXPECT_NE(params.find("outer-reduction"), std::string::npos) << what << ": " << params;
      }
  for (const std::string plan : {"vec=8,threads=256,rows_per_block=256,unroll=1,persistent_batch=4,cluster=16,min_blocks=2",
                                 "vec=8,threads=512,rows_per_block=512,unroll=1,persistent_batch=2,cluster=16,min_blocks=2",
                                 "vec=8,threads=1024,rows_per_block=1024,unroll=2,persistent_batch=0,min_blocks=1,cluster=2"}) {
    const Bindings b = {{"B", 1024}, {"H", 16384}};
    check(norm_of_transposed_res(DType::F16), b, Layout::Contiguous, describe("layer_norm T + r [" + plan + "]", DType::F16, b, Layout::Contiguous),
          plan);
  }
}

// Tall inputs with few kept columns: the scheduler's cluster plans (held rows at 8192 x 64,
// re-read rows at 100003 x 64 and 64 x 100003 transposed, staged outputs), odd sizes.
TEST(GpuOuterNorm, TallInputsWithFewColumns) {
  SKIP_WITHOUT_GPU();
  for (DType t : kTypes) {
    for (const Bindings& b : std::vector<Bindings>{{{"B", 8192}, {"M", 64}}, {{"B", 30001}, {"M", 136}}, {{"B", 100003}, {"M", 64}}})
      for (bool log : {false, true}) {
        const std::string what = describe(log ? "log_softmax dim0" : "softmax dim0", t, b, Layout::Contiguous);
        const std::string params = check(softmax_over(t, 2, 0, log, false), b, Layout::Contiguous, what);
        EXPECT_NE(params.find("cluster="), std::string::npos) << what << ": " << params;
      }
    for (bool rms : {false, true})
      for (const Bindings& b : std::vector<Bindings>{{{"B", 64}, {"H", 100003}}, {{"B", 1000}, {"H", 20000}}, {{"B", 520}, {"H", 9999}}}) {
        const std::string what = describe(rms ? "rms_norm T" : "layer_norm T", t, b, Layout::Contiguous);
        const std::string params = check(norm_of_transposed(t, rms), b, Layout::Contiguous, what);
        EXPECT_NE(params.find("outer-reduction"), std::string::npos) << what << ": " << params;
      }
  }
}

// Plans pinned by hand: clusters of 2 to 16 blocks, held and re-read rows, staged and unstaged
// General outputs, blocks of a cluster that get no rows (16 blocks of 32 rows over 37 rows),
// a tile past the kept columns' end; against the reference, replays bit for bit.
namespace {
// A program, its sizes and a plan pinned by hand.
struct PinnedCase {
  std::function<Fusion(DType)> make;
  Bindings sizes;
  std::string plan;
};

// Checks one pinned case against the reference; returns the launches' params.
std::string check_pinned(const PinnedCase& cs, DType t, Layout l) {
  return check(cs.make(t), cs.sizes, l, describe(cs.make(t).name() + " [" + cs.plan + "]", t, cs.sizes, l), cs.plan);
}
}  // namespace

TEST(GpuOuterNorm, PinnedClusterPlans) {
  SKIP_WITHOUT_GPU();
  const std::vector<PinnedCase> cases = {
      {[](DType t) { return softmax_over(t, 2, 0, false, false); }, {{"B", 1000}, {"M", 96}}, "threads=1024,rows_per_block=128,cluster=2"},
      {[](DType t) { return softmax_over(t, 2, 0, false, false); }, {{"B", 1000}, {"M", 96}}, "cluster=8"},
      {[](DType t) { return softmax_over(t, 2, 0, true, false); }, {{"B", 1000}, {"M", 100}}, "cluster=16"},
      {[](DType t) { return softmax_over(t, 2, 0, false, false); }, {{"B", 37}, {"M", 40}}, "vec=1,threads=1024,rows_per_block=32,cluster=16"},
      {[](DType t) { return softmax_over(t, 2, 0, true, false); }, {{"B", 3001}, {"M", 200}}, "cluster=4,persistent_batch=0,unroll=2,min_blocks=2"},
      {[](DType t) { return softmax_over(t, 3, 1, false, true); }, {{"B", 3}, {"M", 517}, {"K", 40}}, "cluster=4"},
      {[](DType t) { return softmax_over(t, 3, 1, false, true); }, {{"B", 3}, {"M", 517}, {"K", 40}}, "cluster=2,persistent_batch=0,unroll=4"},
      {[](DType t) { return norm_of_transposed(t, false); }, {{"B", 77}, {"H", 301}}, "cluster=4"},
      {[](DType t) { return norm_of_transposed(t, false); }, {{"B", 130}, {"H", 1001}}, "cluster=16,staged=0"},
      {[](DType t) { return norm_of_transposed(t, true); }, {{"B", 96}, {"H", 5000}}, "cluster=8,persistent_batch=0,unroll=4,staged"},
      {[](DType t) { return norm_of_transposed(t, true); }, {{"B", 96}, {"H", 5000}}, "cluster=1,persistent_batch=0,unroll=2"},
  };
  for (DType t : kTypes)
    for (const PinnedCase& cs : cases)
      for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
        const std::string params = check_pinned(cs, t, l);
        const size_t at = cs.plan.find("cluster=");
        const std::string cl = cs.plan.substr(at, cs.plan.find(',', at) - at);
        if (cl != "cluster=1")
          EXPECT_TRUE(params.find(cl + " ") != std::string::npos || params.find(cl + ";") != std::string::npos)
              << cs.plan << ": " << params;
      }
}

// Held rows in shared memory (smem_rows, cp.async): all or some of a thread's rows there, with
// and without a cluster, staged and unstaged outputs, odd sizes (the last slot past the rows);
// against the reference, replays bit for bit. (Contiguous inputs only: a misaligned one narrows
// the vectors below the 4-byte copies.) The same plans compile on the CPU tier
// (OuterNormKernels.HeldRowsInSharedMemory).
TEST(GpuOuterNorm, HeldRowsInSharedMemory) {
  SKIP_WITHOUT_GPU();
  const std::vector<PinnedCase> cases = {
      {[](DType t) { return softmax_over(t, 2, 0, false, false); }, {{"B", 1000}, {"M", 96}}, "threads=1024,rows_per_block=128,persistent_batch=8,cluster=1,smem_rows=8"},
      {[](DType t) { return softmax_over(t, 2, 0, false, false); }, {{"B", 1000}, {"M", 96}}, "threads=512,rows_per_block=64,persistent_batch=16,min_blocks=1,cluster=1,smem_rows=11"},
      {[](DType t) { return softmax_over(t, 2, 0, true, false); }, {{"B", 1000}, {"M", 100}}, "threads=256,rows_per_block=32,persistent_batch=8,cluster=4,smem_rows=8"},
      {[](DType t) { return softmax_over(t, 3, 1, false, true); }, {{"B", 3}, {"M", 517}, {"K", 40}}, "threads=512,rows_per_block=64,persistent_batch=9,min_blocks=1,cluster=1,smem_rows=9"},
      {[](DType t) { return norm_of_transposed(t, false); }, {{"B", 80}, {"H", 301}}, "threads=256,rows_per_block=128,persistent_batch=3,cluster=1,staged=0,smem_rows=2"},
      {[](DType t) { return norm_of_transposed(t, false); }, {{"B", 80}, {"H", 301}}, "threads=256,rows_per_block=128,persistent_batch=3,cluster=1,staged=1,smem_rows=3"},
      {[](DType t) { return norm_of_transposed(t, true); }, {{"B", 96}, {"H", 5000}}, "threads=512,rows_per_block=256,persistent_batch=3,cluster=8,staged=0,smem_rows=3"},
      {[](DType t) { return norm_of_transposed(t, false); }, {{"B", 130}, {"H", 1001}}, "threads=1024,rows_per_block=512,persistent_batch=1,cluster=2,staged=0,smem_rows=1"},
  };
  for (DType t : kTypes)
    for (const PinnedCase& cs : cases) {
      const std::string params = check_pinned(cs, t, Layout::Contiguous);
      EXPECT_NE(params.find("smem_rows="), std::string::npos) << cs.plan << ": " << params;
    }
  // The scheduler's own plans where it holds rows there: a log_softmax over the middle axis of
  // bf16 rows (its register plan spills) and a layer norm with a bias of a transposed bf16 view.
  check(softmax_over(DType::BF16, 3, 1, true, false), {{"B", 8}, {"M", 1000}, {"K", 1024}}, Layout::Contiguous,
        "log_softmax bf16 8x1000x1024");
  check(norm_of_transposed(DType::BF16, false), {{"B", 512}, {"H", 12288}}, Layout::Contiguous, "layer norm T bf16 512x12288");
}

// The new workloads as written in examples/, at their probe sizes.
TEST(GpuOuterNorm, Workloads) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::pair<std::string, Bindings>> cases = {
      {"outer_softmax_dim0_f32", {{"B", 8192}, {"H", 4096}}},
      {"outer_softmax_mid_mask_f16", {{"B", 16}, {"M", 128}, {"K", 4097}}},
      {"outer_log_softmax_mid_f16", {{"B", 64}, {"M", 100}, {"K", 1024}}},
      {"outer_layer_norm_T_f16", {{"B", 5120}, {"H", 6144}}},
      {"outer_rms_norm_T_f32", {{"B", 2048}, {"H", 16384}}},
      {"reduce_mean12_T_bf16", {{"B", 32}, {"K", 1000}, {"M", 1024}}},
      {"reduce_mean12_T_bf16", {{"B", 3}, {"K", 17}, {"M", 33}}},
  };
  for (const auto& [name, b] : cases)
    for (Layout l : {Layout::Contiguous, Layout::Misaligned})
      check(make_workload(name), b, l, describe(name, DType::F32, b, l));
}

// Held cuts: a softmax of a scaled, rounded and masked x over a transposed view (seed 42 #036)
// holds the masked values, not x (the CPU test HeldRowsHoldTheMaskedInput): the scheduler's
// plans and pinned held plans (registers, shared memory, staged outputs, vec 1), masked rows
// (all -inf: NaN) among them.
TEST(GpuOuterNorm, HeldCuts) {
  SKIP_WITHOUT_GPU();
  using solder::testing::softmax_of_transposed;
  auto masked = [](DType t) { return softmax_of_transposed(t, false, true); };
  // (The pinned plans are GpuTierPinnedPlansAreValid's last five, CPU.)
  for (DType t : kTypes) {
    for (const Bindings& b : std::vector<Bindings>{{{"B", 4096}, {"H", 16384}}, {{"B", 1000}, {"H", 3001}}, {{"B", 40}, {"H", 20000}}})
      for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
        const std::string what = describe("masked softmax T", t, b, l);
        const std::string params = check(masked(t), b, l, what);
        if (b.at("H") == 16384 && l == Layout::Contiguous)
          EXPECT_NE(params.find("persistent_batch="), std::string::npos) << what << ": " << params;
      }
    for (const std::string plan : {"threads=256,rows_per_block=64,persistent_batch=16,min_blocks=1,cluster=1,staged=0,scheduler=outer_norm",
                                   "threads=256,rows_per_block=64,persistent_batch=16,smem_rows=10,min_blocks=1,cluster=1,staged=0,scheduler=outer_norm",
                                   "threads=256,rows_per_block=64,persistent_batch=16,min_blocks=1,cluster=1,staged=1,scheduler=outer_norm",
                                   "vec=1,threads=128,rows_per_block=64,persistent_batch=16,min_blocks=1,cluster=1,staged=0,scheduler=outer_norm",
                                   "threads=256,rows_per_block=32,persistent_batch=8,cluster=4,staged=0,scheduler=outer_norm"}) {
      if (t == DType::F32 && plan.find("smem_rows") != std::string::npos) continue;
      check_pinned({masked, {{"B", 100}, {"H", 1000}}, plan}, t, Layout::Contiguous);
    }
  }
}
