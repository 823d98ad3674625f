// Rows in flight (KernelParams::row_unroll) on the GPU against the reference: 2-D pointwise
// kernels, each block taking row_unroll consecutive rows of its pass per step with every row's
// loads issued first. Seed 11 #053's form (f16/bf16/f32 x, a bool [1, M, K]
// mask, a [B, M, 1] operand, f32 out) and seed 8 #142's ([1, M, 1], [1, M, K], [K] beside x) at
// the sweep's sizes (the scheduler's rows) and small ones with pinned rows (2, 3, 4; R not a
// multiple of them), rows of 333, 65 and 7 and of several passes (4097, 3000), aligned rows
// with a weight, size-1 dims, padded
// and misaligned inputs; every output element written (outputs start as NaN), replays give
// the same bits.
#include <gtest/gtest.h>

#include "support/row_unroll_programs.h"

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

// The scheduler's plans at the sweep's sizes: #053 (4 rows in flight at B=128, 2 at B=32; its
// weighted form, whose [K] weight keeps the 2-D plan where one row of R x C would read it element
// by element, as in tests/row_unroll_test.cpp) and #142 (2 rows), contiguous (the rows-in-flight
// plans) and padded or misaligned (other plans).
TEST(GpuRowUnroll, TheSweepsShapes) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F16, DType::BF16, DType::F32})
    for (const Bindings& b : std::vector<Bindings>{{{"B", 128}, {"M", 1000}, {"K", 333}}, {{"B", 32}, {"M", 1000}, {"K", 333}}})
      for (Layout l : {Layout::Contiguous, Layout::Sliced, Layout::Misaligned}) {
        const std::string what = std::string(dtype_name(t)) + " where_clamp_silu_add_w" + sizes_text(b) + " layout " +
                                 std::to_string(static_cast<int>(l));
        const std::string launches = check(where_clamp_silu_add(t, true), b, l, what);
        if (l == Layout::Contiguous) EXPECT_NE(launches.find("row_unroll="), std::string::npos) << what << ": " << launches;
      }
  for (DType t : {DType::F32, DType::F16}) {
    const Bindings b{{"B", 128}, {"M", 512}, {"K", 333}};
    const std::string what = std::string(dtype_name(t)) + " sub_mul_add_bcast" + sizes_text(b);
    const std::string launches = check(sub_mul_add_bcast(t), b, Layout::Contiguous, what);
    if (t == DType::F32) EXPECT_NE(launches.find("row_unroll=2"), std::string::npos) << what << ": " << launches;
  }
  // Aligned rows of 1024 (vectors of 4 at 256 threads): 4 rows.
  const std::string launches =
      check(where_clamp_silu_add(DType::F16), {{"B", 128}, {"M", 1000}, {"K", 1024}}, Layout::Contiguous, "f16 where_clamp_silu_add K=1024");
  EXPECT_NE(launches.find("row_unroll=4"), std::string::npos) << launches;
  // Rows of several passes (4097 in passes of 256 x 4 and the phase): a block per pass.
  const std::string wide = check(where_clamp_silu_add(DType::F16, true), {{"B", 128}, {"M", 100}, {"K", 4097}}, Layout::Contiguous,
                                 "f16 where_clamp_silu_add_w K=4097");
  EXPECT_NE(wide.find("row_unroll=4"), std::string::npos) << wide;
}

// Pinned rows in flight over small grids: R not a multiple of them (9 and 40 rows), rows of odd
// lengths (phased at both ends; rows of 7 inside two vectors), a size-1 dim, aligned rows with a
// weight. Contiguous inputs: padded or misaligned ones beside a contiguous output put the rows
// at other phases than the output's, where the phased plan these pins extend does not apply
// (the CPU kernel simulator's `rowunroll_` cases lay the output out alike; the same pins compile
// in tests/row_unroll_test.cpp).
TEST(GpuRowUnroll, PinnedRows) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F16, DType::BF16, DType::F32})
    for (int n : {2, 3, 4})
      for (int64_t k : {333, 65, 7, 4097})
        for (const Bindings& b : std::vector<Bindings>{{{"B", 3}, {"M", 8}, {"K", k}}, {{"B", 1}, {"M", 9}, {"K", k}},
                                                       {{"B", 5}, {"M", 8}, {"K", k}}}) {
          const std::string pin = "row_unroll=" + std::to_string(n) + ",one_row=0";
          const std::string what = std::string(dtype_name(t)) + sizes_text(b) + " " + pin;
          const std::string a = check(where_clamp_silu_add(t), b, Layout::Contiguous, "where_clamp_silu_add " + what, pin);
          EXPECT_NE(a.find("row_unroll=" + std::to_string(n)), std::string::npos) << what << ": " << a;
          const std::string c = check(sub_mul_add_bcast(t), b, Layout::Contiguous, "sub_mul_add_bcast " + what, pin);
          EXPECT_NE(c.find("row_unroll=" + std::to_string(n)), std::string::npos) << what << ": " << c;
        }
  for (DType t : {DType::F16, DType::F32})
    for (int n : {2, 3, 4})
      for (const Bindings& b : std::vector<Bindings>{{{"B", 7}, {"H", 512}}, {{"B", 10}, {"H", 40}}, {{"B", 9}, {"H", 3000}}})
        for (const std::string vec : {"", ",vec=1"})  // vec=1: elements loaded ahead as vectors of one
          check(mul_add_bias(t), b, Layout::Contiguous, std::string(dtype_name(t)) + " mul_add_bias" + sizes_text(b) + vec,
                "row_unroll=" + std::to_string(n) + ",one_row=0" + vec);
  // Odd halves of f16 rows (seed 30 #024's form): one element a thread, the scheduler's rows.
  for (const Bindings& b : std::vector<Bindings>{{{"B", 8192}}, {{"B", 37}}})
    for (int64_t k : {4098, 334}) check(silu_of_halves(k), b, Layout::Contiguous, "silu_of_halves K=" + std::to_string(k) + sizes_text(b));
}

// Full reductions over sliced rows (seed 17 #059's form): a var_mean and an amax of one padded
// input, phased rows with rows in flight at the sweep's size and at small ones.
TEST(GpuRowUnroll, FullReductionsOverSlicedRows) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F16, DType::BF16, DType::F32}) {
    const Fusion f = full_of_slice(t);
    for (const Bindings& b : std::vector<Bindings>{{{"B", 16384}, {"H", 4096}}, {{"B", 3000}, {"H", 333}}, {{"B", 37}, {"H", 2100}}})
      for (Layout l : {Layout::Sliced, Layout::Misaligned}) {
        const std::string what = std::string(dtype_name(t)) + " full_of_slice" + sizes_text(b) + " layout " +
                                 std::to_string(static_cast<int>(l));
        const std::string launches = check(f, b, l, what);
        if (l == Layout::Sliced && b.at("B") == 16384) EXPECT_NE(launches.find("row_unroll="), std::string::npos) << what << ": " << launches;
      }
  }
}

// One row of R x C with every Full operand a vector at the flat index (seed 37 #138's form:
// [1, M, K] and [M, K] operands in runs of 8, [B, 1, 1] and [B, M, 1] row operands): chunks
// across one row end take the vector path, each element its own row's values. The sweep's size
// (one_row) and small ones: M x K a multiple of the vector or not, rows shorter than a vector,
// padded and misaligned inputs (other plans).
TEST(GpuRowUnroll, OneRowVectorsAcrossRowEnds) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F16, DType::BF16, DType::F32}) {
    const Bindings sweep{{"B", 128}, {"M", 1000}, {"K", 333}};
    const std::string launches = check(div_rows(t), sweep, Layout::Contiguous, std::string(dtype_name(t)) + " div_rows" + sizes_text(sweep));
    EXPECT_NE(launches.find("one_row"), std::string::npos) << launches;
    for (int64_t k : {333, 65, 9, 5})
      for (const Bindings& b : std::vector<Bindings>{{{"B", 3}, {"M", 8}, {"K", k}}, {{"B", 3}, {"M", 7}, {"K", k}}})
        for (Layout l : {Layout::Contiguous, Layout::Sliced, Layout::Misaligned}) {
          const std::string what = std::string(dtype_name(t)) + sizes_text(b) + " layout " + std::to_string(static_cast<int>(l));
          check(div_rows(t), b, l, "div_rows " + what);
          check(where_clamp_silu_add(t), b, l, "where_clamp_silu_add " + what);
        }
  }
}
