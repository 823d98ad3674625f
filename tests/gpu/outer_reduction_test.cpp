// Outer (column) reductions on the GPU against the reference: sum, mean, max, var_mean over
// leading and middle axes; f32/f16/bf16; odd sizes, size-1 dims, padded rows, transposed views
// and misaligned inputs; the block form and the grid form (tall inputs: partials and a last
// block per kept tile), replayed (the tile counters reset themselves) with the same bits.
#include <gtest/gtest.h>

#include <cstring>

#include "programs/run_inputs.h"
#include "gpu_compare.h"
#include "ops/workloads.h"
#include "solder/reference.h"

using namespace solder;
using namespace solder::gpu_testing;

namespace {

// Runs f on the GPU (outputs poisoned first) three times through the cached launch program and
// compares each with the reference; the runs must agree bit for bit (fixed combine order).
// Returns the launches' categories and parameters.
std::string check(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, Layout layout, const std::string& what) {
  return check_against_reference(f, shapes, layout, what, {.seed = 11});
}

std::map<std::string, std::vector<int64_t>> no_shapes;

}  // namespace

TEST(GpuOuterReduction, WorkloadsAcrossSizesAndLayouts) {
  SKIP_WITHOUT_GPU();
  const std::vector<Bindings> sizes = {{{"B", 37}, {"H", 1030}},  {{"B", 1}, {"H", 777}},    {{"B", 129}, {"H", 1}},
                                       {{"B", 5000}, {"H", 3}},   {{"B", 2049}, {"H", 9}},   {{"B", 3}, {"H", 8}},
                                       {{"B", 16384}, {"H", 3072}}, {{"B", 100352}, {"H", 512}},
                                       {{"B", 4}, {"H", 40961}},  {{"B", 9}, {"H", 3000}}};  // few rows: TX up to 256
  for (const char* name : {"outer_colsum_bf16", "outer_var_mean_bf16", "outer_mean_mid_f16", "outer_bn_stats_f16"})
    for (const Bindings& b : sizes) {
      if (std::string(name) == "outer_bn_stats_f16" && b.at("B") > 64) continue;  // [B, 28, 28, H]: keep it small
      Fusion f = make_workload(name);
      auto shapes = resolve_input_shapes(f, no_shapes, b);
      for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
        const std::string what = std::string(name) + " B=" + std::to_string(b.at("B")) + " H=" + std::to_string(b.at("H")) +
                                 " layout " + std::to_string(static_cast<int>(l));
        const std::string params = check(f, shapes, l, what);
        if (b.at("B") >= 16384 && l == Layout::Contiguous) {
          EXPECT_NE(params.find("outer-reduction"), std::string::npos) << what << ": " << params;
          EXPECT_NE(params.find("grid_split"), std::string::npos) << what << ": " << params;
        }
      }
    }
}

// Every reduction kind and dtype, over the leading axis and the middle one, odd sizes.
TEST(GpuOuterReduction, KindsAndDtypes) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (Op op : {Op::Sum, Op::Mean, Op::Max, Op::Min, Op::VarMean})
      for (bool middle : {false, true}) {
        Fusion f("outer_kind");
        Tensor x = middle ? f.input("x", t, {Dim(3), Dim::sym("B"), Dim::sym("H")}) : f.input("x", t, {Dim::sym("B"), Dim::sym("H")});
        const std::vector<int64_t> axes = {middle ? 1 : 0};
        Tensor xf = t == DType::F32 ? x : cast(x, DType::F32);
        switch (op) {
          case Op::Sum: f.output(sum(xf, axes)); break;
          case Op::Mean: f.output(cast(mean(xf, axes, true), t)); break;
          case Op::Max: f.output(max(x, axes)); break;
          case Op::Min: f.output(min(x, axes, true)); break;
          default: {
            VarMean vm = var_mean(xf, axes, 1, true);
            f.output(vm.var);
            f.output(vm.mean);
          }
        }
        for (const Bindings& b : std::vector<Bindings>{{{"B", 301}, {"H", 67}}, {{"B", 20011}, {"H", 136}}}) {
          const std::string what = std::string(dtype_name(t)) + " " + op_name(op) + (middle ? " middle" : " leading") +
                                   " B=" + std::to_string(b.at("B"));
          const std::string params = check(f, resolve_input_shapes(f, no_shapes, b), Layout::Contiguous, what);
          EXPECT_NE(params.find("outer-reduction"), std::string::npos) << what << ": " << params;
        }
      }
}

// A row reduction of a transposed view: the outer template reads it along the kept axis.
TEST(GpuOuterReduction, TransposedViewInput) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::BF16}) {
    Fusion f("sum_rows_of_transposed");
    Tensor x = f.input("x", t, {Dim::sym("H"), Dim::sym("B")});
    VarMean vm = var_mean(cast(x, DType::F32), {1});
    f.output(sum(cast(x, DType::F32), {1}));
    f.output(vm.var);
    f.output(vm.mean);
    for (const Bindings& b : std::vector<Bindings>{{{"B", 4099}, {"H", 1000}}, {{"B", 65537}, {"H", 24}}}) {
      const std::string what = std::string(dtype_name(t)) + " transposed B=" + std::to_string(b.at("B"));
      const std::string params = check(f, resolve_input_shapes(f, no_shapes, b), Layout::Transposed, what);
      EXPECT_NE(params.find("outer-reduction"), std::string::npos) << what << ": " << params;
    }
  }
}

// Reductions over dim 0 of x [A, B, C] laid out [A, C, B] (the last two dims swapped; seed 13
// #134): the kept dims walk x's memory order, the outer template reads B as vectors and stores
// the output's columns one by one into the declared layout (kept_run: the output ends the inner
// kept run at B). Sum, max, var_mean, keepdim or not; f32/f16/bf16; #134's size and odd ones.
TEST(GpuOuterReduction, KeptDimsInTheInputsMemoryOrder) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (int kind = 0; kind < 3; ++kind)
      for (bool keep : {false, true}) {
        Fusion f("dim0_of_swapped");
        Tensor x = f.input("x", t, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
        Tensor xf = t == DType::F32 ? x : cast(x, DType::F32);
        if (kind == 0) f.output(sum(xf, {0}, keep));
        if (kind == 1) f.output(max(x, {0}, keep));
        if (kind == 2) {
          VarMean vm = var_mean(xf, {0}, 1, keep);
          f.output(vm.var);
          f.output(vm.mean);
        }
        for (const Bindings& b : std::vector<Bindings>{{{"A", 128}, {"B", 100}, {"C", 4097}}, {{"A", 5}, {"B", 37}, {"C", 45}},
                                                       {{"A", 700}, {"B", 8}, {"C", 3}}, {{"A", 3}, {"B", 1}, {"C", 17}}}) {
          std::string what = std::string(dtype_name(t)) + " kind " + std::to_string(kind) + (keep ? " keep" : "");
          for (const auto& [k, v] : b) what += " " + k + "=" + std::to_string(v);
          const std::string params = check(f, resolve_input_shapes(f, no_shapes, b), Layout::Transposed, what);
          if (b.at("B") > 1) {
            EXPECT_NE(params.find("outer-reduction"), std::string::npos) << what << ": " << params;
            EXPECT_NE(params.find("kept_run"), std::string::npos) << what << ": " << params;
          }
        }
      }
}

// Phase-shifted kept columns (col_vec=1): odd inner kept runs (seed 6 #059: amax over the
// middle axis of a bf16 [64, 100, 4097]), misaligned and sliced inputs, the block and the grid
// form; the first and last threads of the storage read element by element.
TEST(GpuOuterReduction, PhaseShiftedKeptColumns) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::BF16}) {
    Fusion f("outer_phased");
    Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
    Tensor xf = t == DType::F32 ? x : cast(x, DType::F32);
    f.output(cast(mul(cast(max(x, {1}, true), DType::F32), constant(f, 0.5, DType::F32)), t));
    f.output(sum(xf, {1}));
    VarMean vm = var_mean(xf, {1}, 1, true);
    f.output(vm.var);
    f.output(vm.mean);
    for (const Bindings& b : std::vector<Bindings>{{{"B", 64}, {"M", 100}, {"K", 4097}},
                                                   {{"B", 3}, {"M", 20011}, {"K", 97}},
                                                   {{"B", 1}, {"M", 65536}, {"K", 1030}}}) {
      for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
        const std::string what = std::string(dtype_name(t)) + " K=" + std::to_string(b.at("K")) + " M=" +
                                 std::to_string(b.at("M")) + " layout " + std::to_string(static_cast<int>(l));
        const std::string params = check(f, resolve_input_shapes(f, no_shapes, b), l, what);
        // Phased only where the aligned vector is under half the phased one: f32 rows of 1030
        // take aligned pairs (vectors of 2 against 4).
        if (b.at("K") % 2 == 1 || t == DType::BF16)
          EXPECT_NE(params.find("phased col_vec=1"), std::string::npos) << what << ": " << params;
        if (b.at("M") > 20000 && l == Layout::Contiguous) EXPECT_NE(params.find("grid_split"), std::string::npos) << what << ": " << params;
      }
    }
  }
}

// Few reduced rows and few kept tiles (seed 14 #159, seed 12 #060): narrower tiles, the block
// shrinking to a warp where one thread row covers the rows. A batch of 2, 3 and 100 rows; kept
// columns from one vector to 12288; f16/bf16/f32; a slice (phased kept columns).
TEST(GpuOuterReduction, FewKeptTilesNarrowAndShrink) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F16, DType::BF16, DType::F32})
    for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{2, 32768}, {3, 4100}, {100, 12288}, {2, 8}, {100, 1001}})
      for (Layout l : {Layout::Contiguous, Layout::Sliced}) {
        Fusion f("few_tiles");
        Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("H")});
        Tensor xf = t == DType::F32 ? x : cast(x, DType::F32);
        f.output(min(xf * xf, {0}, true));
        f.output(cast(mean(xf, {0}), t));
        const std::string what = std::string(dtype_name(t)) + " B=" + std::to_string(rows) + " H=" + std::to_string(cols) +
                                 " layout " + std::to_string(static_cast<int>(l));
        const std::string params = check(f, resolve_input_shapes(f, no_shapes, {{"B", rows}, {"H", cols}}), l, what);
        if (cols >= 1001) EXPECT_NE(params.find("outer-reduction"), std::string::npos) << what << ": " << params;
      }
}
