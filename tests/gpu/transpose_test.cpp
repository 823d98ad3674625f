// Transposes on the GPU against the reference: pointwise kernels whose operands disagree on their
// fastest dim (a transposed input beside a contiguous one, bias and column operands), views copied
// into contiguous output buffers by the copy executor's transpose kernel (2-d, every 3-d
// permutation, NCHW <-> NHWC), and kernels writing their result through a permuted output (one
// launch). f32/f16/bf16; odd sizes, size-1 dims, padded rows, misaligned inputs and outputs;
// edge tiles and whole ones; replays give the same bits.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "gpu_compare.h"
#include "ir/parser.h"
#include "ops/workloads.h"
#include "programs/run_inputs.h"
#include "runtime/device_info.h"
#include "solder/reference.h"
#include "support/full_reduction_programs.h"

using namespace solder;
using namespace solder::gpu_testing;
using solder::testing::full_reduction_of;

namespace {

std::map<std::string, std::vector<int64_t>> no_shapes;

// A device tensor of `shape` laid out in `order` (logical dims, outermost first; empty:
// contiguous), `offset` elements past a 256-byte aligned address, every byte 0xff (a NaN in
// every float type: an element left unwritten cannot pass).
DeviceTensor poisoned(DType t, const std::vector<int64_t>& shape, std::vector<int> order = {}, int64_t offset = 0) {
  if (order.empty()) {
    order.resize(shape.size());
    std::iota(order.begin(), order.end(), 0);
  }
  std::vector<int64_t> strides(shape.size(), 1);
  int64_t n = 1;
  for (int i = static_cast<int>(order.size()) - 1; i >= 0; --i) {
    strides[order[i]] = n;
    n *= shape[order[i]];
  }
  const int es = dtype_size(t);
  auto buf = std::make_shared<DeviceBuffer>(static_cast<size_t>(std::max<int64_t>(n + offset, 1) * es));
  check_cuda(driver()->cuMemsetD8Async(buf->ptr(), 0xff, static_cast<size_t>(std::max<int64_t>(n + offset, 1) * es), nullptr),
             "poisoning an output");
  return {t, shape, strides, buf->ptr() + static_cast<uint64_t>(offset * es), buf};
}

struct Outcome {
  std::string launches;  // each launch record: "name category params; "
  std::vector<std::string> kernels;  // every generated kernel (nested copy kernels too)
};

// Runs f with its outputs given (poisoned, laid out as `out_orders` says, `out_offset` elements
// off alignment), compares with the reference, runs again through the cached launch program and
// once more letting the executor allocate (with `contiguous`: ExecutorOptions::contiguous_outputs);
// every run must give the same bits.
Outcome check(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, Layout layout, const std::string& what,
              const std::vector<std::vector<int>>& out_orders = {}, int64_t out_offset = 0, bool contiguous = false) {
  std::vector<HostTensor> in = make_random_inputs(f, shapes, 17);
  std::vector<DeviceTensor> din;
  for (const auto& h : in) din.push_back(upload(h, layout));
  const auto want = run_reference(f, in);
  Executor ex(f, ExecutorOptions{"", contiguous});
  std::vector<DeviceTensor> outs;
  for (size_t i = 0; i < want.size(); ++i)
    outs.push_back(poisoned(want[i].dtype, want[i].shape, i < out_orders.size() ? out_orders[i] : std::vector<int>{}, out_offset));
  std::vector<HostTensor> first;
  for (int run = 0; run < 2; ++run) {
    ex.run(din, nullptr, &outs);
    for (size_t i = 0; i < want.size(); ++i) {
      const HostTensor h = to_host(outs[i]);
      expect_close(h, want[i], what + (run ? " (replay)" : "") + " output " + std::to_string(i));
      if (run == 0) first.push_back(h);
      else EXPECT_TRUE(same_bits(h, first[i])) << what << " output " << i << ": a replay gave other bits";
    }
  }
  Outcome o;
  for (const LaunchRecord& r : ex.last_launches()) o.launches += r.name + " " + r.category + " " + r.params + "; ";
  auto got = ex.run(din);  // outputs of the executor's own
  for (size_t i = 0; i < want.size(); ++i) {
    if (contiguous)
      EXPECT_EQ(got[i].strides, HostTensor::empty(want[i].dtype, want[i].shape).strides) << what << ": contiguous output " << i;
    const HostTensor h = to_host(got[i]);
    expect_close(h, want[i], what + " (own outputs) output " + std::to_string(i));
    EXPECT_TRUE(same_bits(h, first[i])) << what << " output " << i << ": its own outputs gave other bits";
  }
  for (const KernelSourceInfo& k : ex.kernel_sources()) o.kernels.push_back(k.name);
  return o;
}

bool has_transpose_kernel(const Outcome& o) {
  for (const auto& k : o.kernels)
    if (k.rfind("solder_transpose_", 0) == 0) return true;
  return false;
}

std::string sizes_text(const std::vector<std::vector<int64_t>>& shapes) {
  std::string s;
  for (const auto& sh : shapes) {
    s += "[";
    for (size_t d = 0; d < sh.size(); ++d) s += (d ? "x" : "") + std::to_string(sh[d]);
    s += "]";
  }
  return s;
}

Fusion permute_program(DType t, int rank, const std::vector<int64_t>& axes) {
  Fusion f("permute_copy");
  Shape s;
  for (int d = 0; d < rank; ++d) s.push_back(Dim::sym("d" + std::to_string(d)));
  f.output(permute(f.input("x", t, s), axes));
  return f;
}

}  // namespace

// x.t() + a (transpose_add_bf16): xt laid out contiguous, padded (rows of H + 3) or one element
// off alignment; odd sizes (single-element vectors), size-1 dims (then plain pointwise), whole
// and edge tiles.
TEST(GpuTranspose, TransposedInputAcrossSizesAndLayouts) {
  SKIP_WITHOUT_GPU();
  const Fusion f = make_workload("transpose_add_bf16");
  for (const Bindings& b : std::vector<Bindings>{{{"B", 37}, {"H", 1030}},
                                                 {{"B", 1}, {"H", 777}},
                                                 {{"B", 129}, {"H", 1}},
                                                 {{"B", 2049}, {"H", 9}},
                                                 {{"B", 31}, {"H", 67}},
                                                 {{"B", 64}, {"H", 128}},
                                                 {{"B", 4096}, {"H", 4096}},
                                                 {{"B", 1000}, {"H", 3001}}}) {
    const auto shapes = resolve_input_shapes(f, no_shapes, b);
    for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
      const std::string what = "transpose_add_bf16 B=" + std::to_string(b.at("B")) + " H=" + std::to_string(b.at("H")) +
                               " layout " + std::to_string(static_cast<int>(l));
      const Outcome o = check(f, shapes, l, what);
      if (b.at("B") >= 16 && b.at("H") >= 16) EXPECT_NE(o.launches.find(" transpose "), std::string::npos) << what << ": " << o.launches;
    }
  }
}

// Every dtype: a transposed x (uploaded transposed) plus a contiguous y, a bias [H] and a
// column [B, 1]; odd and aligned sizes, misaligned inputs, misaligned outputs.
TEST(GpuTranspose, DtypesBroadcastsAndMisalignment) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    Fusion f("transpose_mix");
    Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("H")});
    Tensor y = f.input("y", t, {Dim::sym("B"), Dim::sym("H")});
    Tensor bias = f.input("bias", t, {Dim::sym("H")});
    Tensor col = f.input("col", t, {Dim::sym("B"), Dim(1)});
    f.output(x * y + bias - col);
    for (const Bindings& b : std::vector<Bindings>{{{"B", 1024}, {"H", 512}}, {{"B", 333}, {"H", 517}}, {{"B", 17}, {"H", 2050}}}) {
      const auto shapes = resolve_input_shapes(f, no_shapes, b);
      for (Layout l : {Layout::Transposed, Layout::Misaligned}) {
        const std::string what = std::string(dtype_name(t)) + " mix B=" + std::to_string(b.at("B")) + " H=" +
                                 std::to_string(b.at("H")) + " layout " + std::to_string(static_cast<int>(l));
        // Transposed: x and y transposed (2-d inputs), bias and column as they are.
        const Outcome o = check(f, shapes, l, what, {}, l == Layout::Misaligned ? 1 : 0);
        (void)o;
      }
    }
    // Only x transposed: the transpose template proper.
    Fusion g("transpose_one");
    Tensor gx = g.input("x", t, {Dim::sym("H"), Dim::sym("B")});
    Tensor gy = g.input("y", t, {Dim::sym("B"), Dim::sym("H")});
    g.output(exp(permute(gx, {1, 0})) + gy);
    for (const Bindings& b : std::vector<Bindings>{{{"B", 1024}, {"H", 512}}, {{"B", 333}, {"H", 517}}, {{"B", 1}, {"H", 100}}}) {
      const std::string what = std::string(dtype_name(t)) + " exp(x.t()) + y B=" + std::to_string(b.at("B")) + " H=" +
                               std::to_string(b.at("H"));
      for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
        const Outcome o = check(g, resolve_input_shapes(g, no_shapes, b), l, what);
        if (b.at("B") > 1) EXPECT_NE(o.launches.find(" transpose "), std::string::npos) << what << ": " << o.launches;
      }
    }
  }
}

// Views of inputs copied into contiguous outputs: the copy executor's kernel transposes. 2-d,
// every permutation of a 3-d tensor, NCHW <-> NHWC; into misaligned outputs too.
TEST(GpuTranspose, PermuteCopiesIntoContiguousOutputs) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    const std::string tn(dtype_name(t));
    for (const auto& shape : std::vector<std::vector<int64_t>>{{8192, 64}, {1000, 1003}, {33, 4097}, {1, 500}, {700, 1}}) {
      const Fusion f = permute_program(t, 2, {1, 0});
      const std::string what = tn + " transpose-copy " + sizes_text({shape});
      const Outcome o = check(f, {shape}, Layout::Contiguous, what);
      if (shape[0] >= 16 && shape[1] >= 16) EXPECT_TRUE(has_transpose_kernel(o)) << what << ": " << o.launches;
      check(f, {shape}, Layout::Misaligned, what + " misaligned", {}, 1);
    }
    for (const auto& axes : std::vector<std::vector<int64_t>>{{0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}})
      for (const auto& shape : std::vector<std::vector<int64_t>>{{3, 100, 70}, {65, 1, 129}, {40, 50, 60}}) {
        const Fusion f = permute_program(t, 3, axes);
        const std::string what = tn + " permute " + sizes_text({shape}) + " axes " + std::to_string(axes[0]) +
                                 std::to_string(axes[1]) + std::to_string(axes[2]);
        check(f, {shape}, Layout::Contiguous, what);
        check(f, {shape}, Layout::Sliced, what + " padded");
      }
    // NCHW -> NHWC (the activation is 32 x 512 x 28 x 28) and back.
    for (const auto& shape : std::vector<std::vector<int64_t>>{{2, 64, 28, 28}, {3, 17, 5, 7}, {1, 512, 28, 28}}) {
      const std::string what = tn + " nchw->nhwc " + sizes_text({shape});
      const Outcome o = check(permute_program(t, 4, {0, 2, 3, 1}), {shape}, Layout::Contiguous, what);
      if (shape[1] >= 16) EXPECT_TRUE(has_transpose_kernel(o)) << what << ": " << o.launches;
      check(permute_program(t, 4, {0, 3, 1, 2}), {{shape[0], shape[2], shape[3], shape[1]}}, Layout::Contiguous,
            tn + " nhwc->nchw " + sizes_text({shape}));
    }
  }
  // The workloads, made contiguous by their executors (ExecutorOptions::contiguous_outputs).
  for (const char* w : {"transpose_copy_f16", "transpose_nchw_nhwc_f16"}) {
    const Fusion f = make_workload(w);
    for (const Bindings& b : std::vector<Bindings>{{{"B", 32}, {"H", 512}}, {{"B", 3}, {"H", 37}}}) {
      const std::string what = std::string(w) + " B=" + std::to_string(b.at("B")) + " H=" + std::to_string(b.at("H"));
      const Outcome o = check(f, resolve_input_shapes(f, no_shapes, b), Layout::Contiguous, what, {}, 0, true);
      // A tile dim under 16 elements (B = 3) stays pointwise (transpose_view).
      if (b.at("B") >= 16) EXPECT_TRUE(has_transpose_kernel(o)) << what << ": " << o.launches;
    }
  }
}

// A permuted view of a kernel's result into the caller's buffer: the kernel writes it there
// (one launch, its output staged through shared memory). Into a buffer laid out like the view's
// source instead (torch's non-contiguous output spec), the same kernel writes contiguously.
TEST(GpuTranspose, KernelsWritePermutedOutputs) {
  SKIP_WITHOUT_GPU();
  const Fusion f = make_workload("transpose_tanh_out_bf16");
  for (const Bindings& b : std::vector<Bindings>{{{"B", 2048}, {"H", 1024}}, {{"B", 301}, {"H", 67}}, {{"B", 1}, {"H", 64}}}) {
    const auto shapes = resolve_input_shapes(f, no_shapes, b);
    const std::string what = "tanh(x + a).t() B=" + std::to_string(b.at("B")) + " H=" + std::to_string(b.at("H"));
    for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
      const Outcome o = check(f, shapes, l, what + " layout " + std::to_string(static_cast<int>(l)), {}, 0, true);
      size_t launched = 0;
      for (size_t at = o.launches.find(" transpose "); at != std::string::npos; at = o.launches.find(" transpose ", at + 1))
        ++launched;
      if (b.at("B") >= 16) EXPECT_EQ(launched, 1u) << what << ": " << o.launches;
      EXPECT_EQ(o.launches.find("solder_copy"), std::string::npos) << what << ": no copy: " << o.launches;
    }
    // The output [H, B] given in memory order [B, H]: the view of a contiguous result.
    check(f, shapes, Layout::Contiguous, what + " into a transposed buffer", {{1, 0}});
    check(f, shapes, Layout::Contiguous, what + " into a misaligned buffer", {}, 1);
  }
  // f32 and f16, 3-d: permute(exp(x) * y, [2, 0, 1]) into a contiguous buffer.
  for (DType t : {DType::F32, DType::F16}) {
    Fusion g("permuted_out3");
    Tensor x = g.input("x", t, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
    Tensor y = g.input("y", t, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
    g.output(permute(exp(x) * y, {2, 0, 1}));
    for (const Bindings& b : std::vector<Bindings>{{{"A", 4}, {"B", 300}, {"C", 257}}, {{"A", 1}, {"B", 64}, {"C", 64}}}) {
      const std::string what = std::string(dtype_name(t)) + " permute(exp(x) * y) A=" + std::to_string(b.at("A"));
      check(g, resolve_input_shapes(g, no_shapes, b), Layout::Contiguous, what, {}, 0, true);
    }
  }
}

// Steps that write row-major results into a caller's output of other strides: a matmul (the
// library's) and a reshape no strides express (a copy) go through a contiguous buffer and a
// copy into it (they were refused), transposed and misaligned.
TEST(GpuTranspose, MatmulsAndReshapeCopiesIntoStridedOutputs) {
  SKIP_WITHOUT_GPU();
  const Fusion f = parse_fusion(
      "fusion strided_outs {\n  input a: f32[65, 1000]\n  input b: f32[1000, 40]\n  input x: f32[6, 10]\n"
      "  c = matmul(a, b)\n  xt = permute(x, axes=[1, 0])\n  r = reshape(xt, shape=[5, 12])\n  output c\n  output r\n}\n");
  const std::vector<std::vector<int64_t>> shapes = {{65, 1000}, {1000, 40}, {6, 10}};
  for (int64_t offset : {0, 1}) {
    const Outcome o = check(f, shapes, Layout::Contiguous, "into transposed outputs, offset " + std::to_string(offset),
                            {{1, 0}, {1, 0}}, offset);
    EXPECT_NE(o.launches.find("cublasLt_matmul"), std::string::npos) << o.launches;
  }
}

// Full reductions over every dim of x * y with x a permuted view (seed 11 #129): the transpose
// template's reducing tiles (x direct, y staged, or the other way round) against the reference.
// sum, amax, var_mean and an epilogue after them; f32/f16/bf16; odd sizes and edge tiles, size-1
// dims, misaligned, padded and transposed inputs; a grid smaller than the tiles (#129's size).
// Sums are not replayed bit for bit (float atomics across blocks); amax is.
TEST(GpuTranspose, FullReductionsOfDisagreeingInputs) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const std::string kind : {"sum", "amax", "var_mean", "post"})
      for (const Bindings& b : std::vector<Bindings>{{{"B", 3}, {"M", 17}, {"K", 33}},
                                                     {{"B", 2}, {"M", 64}, {"K", 65}},
                                                     {{"B", 1}, {"M", 40}, {"K", 70}},
                                                     {{"B", 20}, {"M", 1}, {"K", 33}},
                                                     {{"B", 3}, {"M", 5}, {"K", 33}},
                                                     {{"B", 32}, {"M", 64}, {"K", 4097}}})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced, Layout::Transposed}) {
          const Fusion f = full_reduction_of(t, kind, true);
          std::string what = std::string(dtype_name(t)) + " " + kind;
          for (const auto& [k, v] : b) what += " " + k + "=" + std::to_string(v);
          what += " layout " + std::to_string(static_cast<int>(l));
          const std::string launches =
              check_against_reference(f, resolve_input_shapes(f, {}, b), l, what, {.seed = 29, .deterministic = kind == "amax"});
          // Both tile dims of 16 or more, inputs as given: the reducing tiles.
          if (l == Layout::Contiguous && b.at("M") >= 16 && b.at("K") >= 16)
            EXPECT_NE(launches.find(" transpose "), std::string::npos) << what << ": " << launches;
        }
}

// Partial reductions over dim 0 of x * y, x stored [K, B, M] and permuted in the program to
// [B, M, K] (fast along M), y contiguous (fast along K): the tiles of [M, K] loop over B (seed
// 14 #136). Odd sizes (edge tiles), a batch of 1, misaligned inputs, an epilogue, two outputs,
// var_mean; kept dims too small for a tile per SM (declined to the inner template).
TEST(GpuTranspose, PartialReductionsOfDisagreeingInputs) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const std::string kind : {"sum_sqrt", "amax_mean", "var_mean"})
      for (const Bindings& b : std::vector<Bindings>{{{"B", 5}, {"M", 37}, {"K", 70}},
                                                     {{"B", 1}, {"M", 4200}, {"K", 130}},
                                                     {{"B", 16}, {"M", 1100}, {"K", 520}},
                                                     {{"B", 64}, {"M", 64}, {"K", 64}},
                                                     // few kept tiles, B split over the grid (odd: edge tiles, uneven splits)
                                                     {{"B", 61}, {"M", 500}, {"K", 520}},
                                                     // fewer kept tiles than SMs, their splits more (seed 38 #132's form)
                                                     {{"B", 45}, {"M", 300}, {"K", 400}}})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
          Fusion f("part_red_" + kind);
          Tensor x = permute(f.input("x", t, {Dim::sym("K"), Dim::sym("B"), Dim::sym("M")}), {1, 2, 0});
          Tensor y = f.input("y", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
          Tensor p = cast(x, DType::F32) * cast(y, DType::F32);
          // sqrt(|s| + 1): a sum that cancels to near zero would turn rounding into a large relative error.
          if (kind == "sum_sqrt") f.output(cast(sqrt(abs(sum(p, {0}, true)) + 1.0), t));
          if (kind == "amax_mean") {
            f.output(amax(x * y, {0}));
            f.output(mean(p, {0}));
          }
          if (kind == "var_mean") {  // shifted sums per element (seed 16 #007); a batch of 1: NaN variance
            VarMean vm = var_mean(p + 3.0, {0}, 1, false);
            f.output(vm.var);
            f.output(vm.mean);
          }
          std::string what = std::string(dtype_name(t)) + " " + kind;
          for (const auto& [k, v] : b) what += " " + k + "=" + std::to_string(v);
          what += " layout " + std::to_string(static_cast<int>(l));
          const std::string launches = check_against_reference(f, resolve_input_shapes(f, {}, b), l, what, {.seed = 31});
          // Tiled where even tiles of 32 x 128, times their splits (shares of 8 reduced indices),
          // are as many as the SMs; the rest through the inner template, checked all the same.
          const bool tiled = (b.at("M") + 31) / 32 * ((b.at("K") + 127) / 128) * std::max<int64_t>(1, b.at("B") / 8) >=
                             current_device().sm_count;
          if (l == Layout::Contiguous && tiled) EXPECT_NE(launches.find(" transpose "), std::string::npos) << what << ": " << launches;
        }
}

// Partial reductions whose tiles reduce their columns (tile_reduces_cols): x stored [M, K, B]
// and permuted to [B, M, K] (fast along the kept B), y contiguous (fast along the reduced K);
// seed 16 #128 (var over dim 1 of x * y, x transposed) and seed 19 #159 / #089 (reductions over
// two dims of such a pair). Odd sizes (edge tiles and chunks), size-1 dims, misaligned inputs,
// the split form (few kept tiles: blocks leave partials, the last combines), var_mean's
// Welford merges across lanes and splits, an epilogue, two outputs.
TEST(GpuTranspose, PartialReductionsAcrossTileColumns) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const std::string kind : {"sum_sqrt", "amax_mean", "var_mean"})
      for (const auto& [b, dims] : std::vector<std::pair<Bindings, std::vector<int64_t>>>{
               {{{"B", 333}, {"M", 16}, {"K", 1000}}, {1, 2}},
               {{{"B", 1030}, {"M", 1}, {"K", 4100}}, {1, 2}},
               {{{"B", 40}, {"M", 3}, {"K", 37}}, {1, 2}},
               {{{"B", 1030}, {"M", 7}, {"K", 515}}, {2}},
               {{{"B", 17}, {"M", 100}, {"K", 128}}, {2}}})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned}) {
          Fusion f("cross_red_" + kind);
          Tensor x = permute(f.input("x", t, {Dim::sym("M"), Dim::sym("K"), Dim::sym("B")}), {2, 0, 1});
          Tensor y = f.input("y", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
          Tensor p = cast(x, DType::F32) * cast(y, DType::F32);
          if (kind == "sum_sqrt") f.output(cast(sqrt(abs(sum(p, dims, true)) + 1.0), t));
          if (kind == "amax_mean") {
            f.output(amax(x * y, dims));
            f.output(mean(p, dims));
          }
          if (kind == "var_mean") {
            VarMean vm = var_mean(p + 3.0, dims, 1, false);
            f.output(vm.var);
            f.output(vm.mean);
          }
          std::string what = std::string(dtype_name(t)) + " " + kind + " over " + std::to_string(dims.size()) + " dims";
          for (const auto& [k, v] : b) what += " " + k + "=" + std::to_string(v);
          what += " layout " + std::to_string(static_cast<int>(l));
          const std::string launches = check_against_reference(f, resolve_input_shapes(f, {}, b), l, what, {.seed = 37});
          // Tiled where the kept tile dim reaches 16 (16-bit rows of odd length: vectors of one
          // element, rows of 64 lanes over two warps).
          if (l == Layout::Contiguous && b.at("B") >= 16) EXPECT_NE(launches.find(" transpose "), std::string::npos) << what << ": " << launches;
        }
}

// A transposed bool mask (staged bytes packed into their slots by byte permutes) beside a
// contiguous x, a row and a column operand: odd and whole tiles, misaligned and sliced layouts.
TEST(GpuTranspose, TransposedBoolMasks) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    Fusion f("masked_t");
    const Dim B = Dim::sym("B"), M = Dim::sym("M"), K = Dim::sym("K");
    Tensor x = f.input("x", t, {B, M, K});
    Tensor y0 = f.input("y0", t, {B, M, Dim(1)});
    Tensor y1 = f.input("y1", t, {B, Dim(1), K});
    Tensor mt = f.input("mt", DType::Bool, {K, M});
    Tensor v = maximum(x, y0) * y1;
    f.output(where(permute(mt, {1, 0}), v, constant(f, 0, t)) * 1.0);
    f.output(v * 1.0);
    for (const Bindings& b : std::vector<Bindings>{{{"B", 4}, {"M", 256}, {"K", 768}}, {{"B", 3}, {"M", 37}, {"K", 130}},
                                                   {{"B", 1}, {"M", 200}, {"K", 72}}})
      for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Sliced}) {
        const std::string what = std::string(dtype_name(t)) + " masked_t" + sizes_text(b) + " layout " + std::to_string(static_cast<int>(l));
        const Outcome o = check(f, resolve_input_shapes(f, no_shapes, b), l, what);
        if (l == Layout::Contiguous && b.at("M") >= 64) EXPECT_NE(o.launches.find(" transpose "), std::string::npos) << what << ": " << o.launches;
      }
  }
}
