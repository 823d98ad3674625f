// Every example workload and a set of single-op programs, on the GPU vs the reference, over
// odd sizes, size-1 dims, non-contiguous and misaligned inputs, outputs poisoned first.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "programs/load_program.h"
#include "programs/run_inputs.h"
#include "ir/parser.h"
#include "gpu_compare.h"
#include "ops/workloads.h"
#include "reference/parallel.h"
#include "solder/error.h"
#include "solder/reference.h"
#include "support/pad_programs.h"
#include "support/reshape_math_programs.h"
#include "support/small_matmul_programs.h"

using namespace solder;
using namespace solder::gpu_testing;

namespace {

// A device tensor of 0xFF bytes: elements a kernel leaves unwritten read as NaN or garbage.
// Runs f on the GPU (outputs provided pre-filled with 0xFF: unwritten elements show as NaN
// or garbage) and compares with the reference. Returns the launches' names and parameters.
std::string check(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, Layout layout, const std::string& what) {
  std::vector<HostTensor> in = make_random_inputs(f, shapes, 7);
  std::vector<DeviceTensor> din;
  for (const auto& h : in) din.push_back(upload(h, layout));
  auto want = run_reference(f, in);
  Executor ex(f);
  std::vector<DeviceTensor> outs;
  for (const auto& w : want) outs.push_back(poisoned_output(w.dtype, w.shape));
  ex.run(din, nullptr, &outs);
  for (size_t i = 0; i < want.size(); ++i)
    expect_close(to_host(outs[i]), want[i], what + " output " + std::to_string(i));
  // A second call through the cached launch program, allocating its own outputs.
  auto again = ex.run(din);
  for (size_t i = 0; i < want.size(); ++i)
    expect_close(to_host(again[i]), want[i], what + " (replay) output " + std::to_string(i));
  std::string params;
  for (const LaunchRecord& r : ex.last_launches()) params += r.name + " " + r.params + "; ";
  return params;
}

std::map<std::string, std::vector<int64_t>> no_shapes;

}  // namespace

TEST(GpuExecutor, EveryWorkloadMatchesReference) {
  SKIP_WITHOUT_GPU();
  for (const auto& name : workload_names()) {
    Fusion f = make_workload(name);
    Bindings sizes = {{"B", 37}, {"H", 1030}, {"N", 100003}, {"M", 33}, {"K", 129}};
    auto shapes = resolve_input_shapes(f, no_shapes, sizes);
    for (Layout l : {Layout::Contiguous, Layout::Misaligned}) check(f, shapes, l, name);
  }
}

// Two halves of one tensor are rows of a wider tensor: the pointwise kernel keeps them as rows
// (16-byte vectors along each), at odd widths and offsets too; a constant output is
// materialized by a kernel of its own.
TEST(GpuExecutor, SlicedHalvesAndConstantOutputs) {
  SKIP_WITHOUT_GPU();
  for (int64_t h : {8, 1030, 4096})
    for (const char* dt : {"bf16", "f32"}) {
      const std::string H = std::to_string(h), H2 = std::to_string(2 * h);
      Fusion f = parse_fusion("fusion halves {\n  input x: " + std::string(dt) + "[B, " + H2 +
                              "]\n  a = slice(x, axis=1, start=0, end=" + H + ")\n  b = slice(x, axis=1, start=" + H +
                              ", end=" + H2 + ")\n  af = cast(a, dtype=f32)\n  sg = sigmoid(af)\n  s = mul(af, sg)\n"
                              "  bf = cast(b, dtype=f32)\n  y = mul(s, bf)\n  c = constant(value=2.5, dtype=f32)\n"
                              "  output y\n  output c\n}\n");
      for (int64_t b : {1, 37})
        for (Layout l : {Layout::Contiguous, Layout::Misaligned})
          check(f, {{b, 2 * h}}, l, "halves " + std::string(dt) + " B=" + std::to_string(b) + " H=" + H);
    }
}

// Cat pieces made by kernels are written straight into the cat's buffer, except pieces read
// elsewhere or returned (those are copied): values, odd widths, misaligned inputs.
TEST(GpuExecutor, CatPiecesWrittenInPlace) {
  SKIP_WITHOUT_GPU();
  Fusion f = parse_fusion(
      "fusion cats {\n  input x: f32[B, H]\n  input y: bf16[B, W]\n  a = exp(x)\n  yf = cast(y, dtype=f32)\n"
      "  b = neg(yf)\n  v, m = var_mean(x, axes=[1], keepdim=true, correction=0)\n  n = sub(x, m)\n  c = cat(a, b, n, axis=1)\n"
      "  two = constant(value=2.0, dtype=f32)\n  d = mul(b, two)\n  output c\n  output d\n  output a\n}\n");
  for (int64_t h : {5, 1030})
    for (Layout l : {Layout::Contiguous, Layout::Misaligned})
      check(f, {{37, h}, {37, h + 3}}, l, "cats H=" + std::to_string(h));
}

// Reductions of 16-bit values without a cast (a bf16 max, an f16 sum) accumulate in floats;
// rows over several warps combine them through shared memory in float slots.
TEST(GpuExecutor, NarrowReductionsAcrossWarps) {
  SKIP_WITHOUT_GPU();
  for (const char* dt : {"bf16", "f16"})
    for (const char* op : {"max", "min", "sum"}) {
      Fusion f = parse_fusion("fusion narrow {\n  input x: " + std::string(dt) + "[B, H]\n  r = " + op +
                              "(x, axes=[1], keepdim=false)\n  output r\n}\n");
      for (int64_t h : {1030, 4097})
        check(f, {{37, h}}, Layout::Contiguous, std::string(dt) + " " + op + " H=" + std::to_string(h));
    }
}

TEST(GpuExecutor, NormsAcrossHiddenSizes) {
  SKIP_WITHOUT_GPU();
  for (const char* name : {"w1_layer_norm_fused", "w5_softmax_bf16", "w5_rms_norm_bf16"})
    for (int64_t h : {1, 7, 768, 1000, 5140, 16388, 65536 + 8})
      for (int64_t b : {1, 16, 129, 257}) {  // 257: rows of a wave or two, spread over more threads
        Fusion f = make_workload(name);
        auto shapes = resolve_input_shapes(f, no_shapes, {{"B", b}, {"H", h}});
        check(f, shapes, Layout::Contiguous, std::string(name) + " B=" + std::to_string(b) + " H=" + std::to_string(h));
      }
}

// Issue 5's hidden sizes (odd ones included) at small and medium batches, and at B = 8192+3
// where every prefetching block strides over many rows (its next-row loads are exercised).
TEST(GpuExecutor, NormsOverTheHiddenSweep) {
  SKIP_WITHOUT_GPU();
  const std::vector<int64_t> hs = {768,   1024,  2048, 4096, 5140, 8192, 12288, 16384, 20480, 32768,
                                   65536, 770,   772,  776,  784,  4098, 4100,  4104,  4112};
  auto run = [&](const char* name, int64_t b, int64_t h) {
    Fusion f = make_workload(name);
    auto shapes = resolve_input_shapes(f, no_shapes, {{"B", b}, {"H", h}});
    check(f, shapes, Layout::Contiguous, std::string(name) + " B=" + std::to_string(b) + " H=" + std::to_string(h));
  };
  for (int64_t h : hs) {
    for (int64_t b : {1, 16, 512}) run("w1_layer_norm_fused", b, h);
    run("w5_softmax_bf16", 16, h);
    run("w5_rms_norm_bf16", 16, h);
  }
  // W1 in bf16 and f32 (B=512: blocks walk several rows): the shared-memory prefetch with read-only
  // and with plain weight loads (bf16 32768, f32 20480 and 32768, f16 65536), phased and f32 rows.
  for (const char* name : {"w1_layer_norm_fused_bf16", "w1_layer_norm_fused_f32"})
    for (int64_t h : {768, 770, 4098, 4100, 5140, 8192, 20480, 32768, 65536}) run(name, 512, h);
  // f32 rows of pairs (H = 2 mod 4) at 8 vectors a thread: 224 x 5, one block of 544 x 8 and 800 x 8 per SM.
  for (int64_t h : {2050, 8194, 12290}) run("w1_layer_norm_fused_f32", 512, h);
  for (int64_t h : {776, 5140}) run("w1_layer_norm_fused", 8195, h);
  run("w5_softmax_bf16", 8195, 1000);
  run("w5_rms_norm_bf16", 4099, 4100);
  // Odd rows with one weight: phased vectors, the weight element by element at each row's phase.
  for (int64_t h : {37, 333, 1001, 4097}) run("w5_rms_norm_bf16", 515, h);
}

// The sweep at B = 8192, where blocks walk many rows (row tickets, the next-row prefetch). The
// reference of every row would take the CPU minutes per size, so it runs on 96 of them (the
// first, middle and last 32) of the same random inputs; every other output element must have
// been written (the outputs start as 0xFF bytes: NaN in f16/bf16, which these norms never give).
namespace {
void sweep_at_b8192_on_sampled_rows(const char* name) {
  constexpr int64_t kB = 8192, kSample = 32;
  const std::vector<int64_t> starts = {0, kB / 2 - kSample / 2, kB - kSample};
  for (int64_t h : {768, 1024, 2048, 4096, 5140, 8192, 12288, 16384, 20480, 32768, 65536, 770, 772, 776, 784, 4098,
                    4100, 4104, 4112}) {
    const std::string what = std::string(name) + " B=8192 H=" + std::to_string(h);
    const auto t0 = std::chrono::steady_clock::now();
    auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    Fusion f = make_workload(name);
    auto in = make_random_inputs(f, resolve_input_shapes(f, no_shapes, {{"B", kB}, {"H", h}}), 13);
    std::vector<DeviceTensor> din;
    for (const auto& t : in) din.push_back(to_device(t));
    Executor ex(f);
    std::vector<DeviceTensor> outs = {poisoned_output(f.value(f.outputs()[0]).dtype, {kB, h})};
    ex.run(din, nullptr, &outs);
    HostTensor got = to_host(outs[0]);
    const double ran = seconds();
    ASSERT_EQ(got.shape, (std::vector<int64_t>{kB, h})) << what;
    std::atomic<int64_t> unwritten{0};
    ref::parallel_for(got.numel(), [&](int64_t begin, int64_t end) {
      int64_t n = 0;
      for (int64_t i = begin; i < end; ++i) n += std::isnan(load_element(got.dtype, got.data() + i * dtype_size(got.dtype)));
      unwritten += n;
    });
    EXPECT_EQ(unwritten.load(), 0) << what;
    // The sampled rows: the [B, H] inputs sliced, the weights as they are.
    const size_t row_bytes = static_cast<size_t>(h * dtype_size(got.dtype));
    for (int64_t r0 : starts) {
      std::vector<HostTensor> rows;
      for (const auto& t : in) {
        if (t.rank() != 2) {
          rows.push_back(t);
          continue;
        }
        HostTensor s = HostTensor::empty(t.dtype, {kSample, h});
        std::memcpy(s.data(), t.data() + r0 * h * dtype_size(t.dtype), static_cast<size_t>(kSample * h * dtype_size(t.dtype)));
        rows.push_back(s);
      }
      HostTensor part = HostTensor::empty(got.dtype, {kSample, h});
      std::memcpy(part.data(), got.data() + r0 * static_cast<int64_t>(row_bytes), kSample * row_bytes);
      expect_close(part, run_reference(f, rows)[0], what + " rows " + std::to_string(r0) + "+");
    }
    // Progress: the sweep takes minutes on the device host (inputs of up to 2^29 elements).
    std::fprintf(stderr, "%s: ran in %.1f s, checked in %.1f s\n", what.c_str(), ran, seconds() - ran);
  }
}
}  // namespace

TEST(GpuExecutor, W1OverTheHiddenSweepAtB8192OnSampledRows) {
  SKIP_WITHOUT_GPU();
  sweep_at_b8192_on_sampled_rows("w1_layer_norm_fused");
}
TEST(GpuExecutor, SoftmaxOverTheHiddenSweepAtB8192OnSampledRows) {
  SKIP_WITHOUT_GPU();
  sweep_at_b8192_on_sampled_rows("w5_softmax_bf16");
}
TEST(GpuExecutor, RmsNormOverTheHiddenSweepAtB8192OnSampledRows) {
  SKIP_WITHOUT_GPU();
  sweep_at_b8192_on_sampled_rows("w5_rms_norm_bf16");
}

// Prefetching kernels take rows from a counter that the last block zeroes: launch after launch
// of one executor must cover every row (outputs poisoned before each).
TEST(GpuExecutor, RowTicketsResetBetweenLaunches) {
  SKIP_WITHOUT_GPU();
  for (const char* name : {"w1_layer_norm_fused", "w5_softmax_bf16"}) {
    Fusion f = make_workload(name);
    auto shapes = resolve_input_shapes(f, no_shapes, {{"B", 8195}, {"H", 4096}});
    std::vector<HostTensor> in = make_random_inputs(f, shapes, 11);
    std::vector<DeviceTensor> din;
    for (const auto& h : in) din.push_back(upload(h, Layout::Contiguous));
    auto want = run_reference(f, in);
    Executor ex(f);
    for (int launch = 0; launch < 3; ++launch) {
      std::vector<DeviceTensor> outs = {poisoned_output(want[0].dtype, want[0].shape)};
      ex.run(din, nullptr, &outs);
      expect_close(to_host(outs[0]), want[0], std::string(name) + " launch " + std::to_string(launch));
    }
  }
}

// Looped rows take var_mean in one pass (Welford, Chan's merge). Over rows whose mean is far
// from zero a one-pass sum of squares would cancel (mean 1000, variance 4/3: about 5 % off in
// f32); Welford stays within f32's resolution of the mean (f32 spacing at 1000 is 6e-5).
TEST(GpuExecutor, LoopedLayerNormKeepsItsVarianceOverALargeMean) {
  SKIP_WITHOUT_GPU();
  Fusion f = make_workload("w1_layer_norm_fused_f32");
  auto shapes = resolve_input_shapes(f, no_shapes, {{"B", 4}, {"H", 1 << 20}});  // looped: 4 MB rows
  std::vector<HostTensor> in = make_random_inputs(f, shapes, 17);
  HostTensor& x = in[1];  // t1: f32[B, H]
  ASSERT_EQ(x.rank(), 2);
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, x.get(i) + 1000.0);
  std::vector<DeviceTensor> din;
  for (const auto& h : in) din.push_back(to_device(h));
  Executor ex(f);
  HostTensor got = to_host(ex.run(din)[0]);
  HostTensor want = run_reference(f, in)[0];
  double worst = 0;
  for (int64_t i = 0; i < want.numel(); ++i) worst = std::max(worst, std::fabs(got.get(i) - want.get(i)));
  EXPECT_LT(worst, 2e-3) << "outputs are O(1): the row statistics drifted";
}

// Rows split over a cluster of blocks (2-8 SMs per row, reductions through distributed shared
// memory): one row, fewer rows than clusters, more (the resident clusters stride over rows and
// prefetch), odd sizes (a ragged last batch in the last block), padded rows (vectors of one).
TEST(GpuExecutor, ClusterRowsMatchReference) {
  SKIP_WITHOUT_GPU();
  struct Case {
    const char* name;
    int64_t h;
    Layout layout;
  };
  for (const Case& c : {Case{"w1_layer_norm_fused_f32", 65536, Layout::Contiguous},
                        {"w1_layer_norm_fused_f32", 49152, Layout::Contiguous},
                        {"w1_layer_norm_fused_f32", 40000, Layout::Contiguous},
                        {"w1_layer_norm_fused_f32", 65536, Layout::Sliced},
                        {"w1_layer_norm_fused", 131072, Layout::Contiguous},
                        {"w5_softmax_bf16", 131080, Layout::Contiguous},
                        {"w5_rms_norm_bf16", 131072, Layout::Contiguous}})
    for (int64_t b : {1, 37, 300}) {
      Fusion f = make_workload(c.name);
      auto shapes = resolve_input_shapes(f, no_shapes, {{"B", b}, {"H", c.h}});
      const std::string what = std::string(c.name) + " B=" + std::to_string(b) + " H=" + std::to_string(c.h) +
                               (c.layout == Layout::Sliced ? " sliced" : "");
      const std::string params = check(f, shapes, c.layout, what);
      // Rows fewer than SMs may split over the grid instead (row_split, the few-rows model).
      EXPECT_TRUE(params.find("cluster=") != std::string::npos || (b < 132 && params.find("row_split=") != std::string::npos))
          << what << ": " << params;
    }
}

// Softmax over a cluster: rows masked with -inf from a varying column on (whole blocks of the
// cluster see only -inf, as under a causal mask's tail) match the reference, where every column
// past the cut is 0 and no NaN appears.
TEST(GpuExecutor, MaskedSoftmaxRowsOverClusters) {
  SKIP_WITHOUT_GPU();
  Fusion f = make_workload("w5_softmax_bf16");
  const int64_t b = 37, h = 131080;
  auto shapes = resolve_input_shapes(f, no_shapes, {{"B", b}, {"H", h}});
  std::vector<HostTensor> in = make_random_inputs(f, shapes, 11);
  for (int64_t r = 0; r < b; ++r)
    for (int64_t col = 1 + (r * 9973) % h; col < h; ++col) in[0].set(r * h + col, -INFINITY);
  auto want = run_reference(f, in);
  Executor ex(f);
  auto got = ex.run({to_device(in[0])});
  expect_close(to_host(got[0]), want[0], "masked softmax B=37 H=131080");
  HostTensor host = to_host(got[0]);
  for (int64_t k = 0; k < host.numel(); ++k) ASSERT_FALSE(std::isnan(host.get(k))) << "element " << k;
  ASSERT_NE(ex.last_launches().at(0).params.find("cluster="), std::string::npos) << ex.last_launches().at(0).params;
}

// Executor::capture: a run as one CUDA graph. Replays must give what a run gives for new
// values written into the same inputs (outputs poisoned before each), also after the executor
// is gone: the captured run keeps the buffers, counters and functions its graph addresses.
TEST(GpuExecutor, CapturedRunsReplayNewInputs) {
  SKIP_WITHOUT_GPU();
  for (const char* name : {"w1_layer_norm_fused", "w2_fp8_bf16_e4m3_sat", "w3_split_stack", "w3_combined", "w4_einsum_4",
                           "w5_softmax_bf16"}) {
    Fusion f = make_workload(name);
    auto shapes = resolve_input_shapes(f, no_shapes, {{"B", 37}, {"H", 1030}, {"N", 100003}});
    std::vector<DeviceTensor> din;
    for (const auto& h : make_random_inputs(f, shapes, 21)) din.push_back(to_device(h));
    std::unique_ptr<CapturedRun> captured;
    {
      Executor ex(f);
      captured = ex.capture(din);
    }
    for (uint64_t seed : {22, 23}) {
      std::vector<HostTensor> next = make_random_inputs(f, shapes, seed);
      for (size_t i = 0; i < next.size(); ++i)
        check_cuda(driver()->cuMemcpyHtoD(din[i].ptr, next[i].data(), next[i].numel() * dtype_size(next[i].dtype)),
                   "writing new inputs");
      for (const auto& o : captured->outputs())
        check_cuda(driver()->cuMemsetD8Async(o.ptr, 0xff, o.numel() * dtype_size(o.dtype), nullptr), "poisoning");
      captured->replay();
      check_cuda(driver()->cuCtxSynchronize(), "replay");
      auto want = run_reference(f, next);
      ASSERT_EQ(captured->outputs().size(), want.size()) << name;
      for (size_t i = 0; i < want.size(); ++i)
        expect_close(to_host(captured->outputs()[i]), want[i],
                     std::string(name) + " replay " + std::to_string(seed) + " output " + std::to_string(i));
    }
  }
}

TEST(GpuExecutor, CaptureRefusesWhileProfiling) {
  SKIP_WITHOUT_GPU();
  Fusion f = make_workload("w5_gelu_bias_bf16");
  auto shapes = resolve_input_shapes(f, no_shapes, {{"B", 4}, {"H", 64}});
  std::vector<DeviceTensor> din;
  for (const auto& h : make_random_inputs(f, shapes, 5)) din.push_back(to_device(h));
  Executor ex(f);
  ex.set_profiling(true);
  try {
    ex.capture(din);
    ADD_FAILURE() << "capture while profiling should throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("profiling is on"), std::string::npos) << e.what();
  }
}

TEST(GpuExecutor, NonContiguousInputs) {
  SKIP_WITHOUT_GPU();
  for (const char* name : {"w1_layer_norm_fused", "w5_gelu_bias_bf16", "w5_softmax_bf16"})
    for (Layout l : {Layout::Transposed, Layout::Sliced}) {
      Fusion f = make_workload(name);
      auto shapes = resolve_input_shapes(f, no_shapes, {{"B", 33}, {"H", 515}});
      check(f, shapes, l, std::string(name) + (l == Layout::Transposed ? " transposed" : " sliced"));
    }
}

TEST(GpuExecutor, EveryElementwiseOp) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    Fusion f("ops");
    Dim B = Dim::sym("B"), H = Dim::sym("H");
    Tensor x = f.input("x", t, {B, H});
    Tensor y = f.input("y", t, {Dim(1), H});
    Tensor c = f.input("c", t, {B, Dim(1)});
    Tensor pos = abs(x) + 0.5;
    for (Tensor r : {neg(x), abs(x), exp(x), log(pos), sqrt(pos), rsqrt(pos), reciprocal(pos), tanh(x), sigmoid(x),
                     erf(x), sin(x), cos(x), relu(x), gelu(x), gelu_tanh(x), silu(x), x + y, x - c, x * y, x / pos,
                     pow(pos, y), maximum(x, y), minimum(x, c), where(gt(x, y), x, c), clamp(x, -0.5, 0.75),
                     cast(lt(x, c), t), cast(logical_and(gt(x, 0.0), lt(y, 0.0)), t), cast(cast(x * 3.0, DType::I32), t),
                     log1p(pos), expm1(x), floor(x * 3.0), ceil(x * 3.0), trunc(x * 3.0), round(x * 3.0)})
      f.output(r);
    check(f, {{45, 133}, {1, 133}, {45, 1}}, Layout::Contiguous, std::string("ops ") + std::string(dtype_name(t)));
  }
}

// f32 quotients that every result rounds to f16 or bf16 take the reciprocal's product
// (div_narrow): within the narrow dtype's rounding of eager's quotient, and the IEEE quotient's
// class for zero, infinite and NaN operands; subnormal divisors (whose reciprocal would
// overflow) and divisors near the f32 maximum (a subnormal reciprocal) included. (Which
// division the kernel takes: CodegenCompile.HalfQuotientsTakeTheShortDivision.)
TEST(GpuExecutor, QuotientsUnderNarrowResults) {
  SKIP_WITHOUT_GPU();
  const std::vector<float> specials = {0.f,     -0.f,    INFINITY, -INFINITY, NAN,     1e-40f, -3e-42f, 1.4e-45f,
                                       1e-38f,  3e38f,   -2e38f,   1.f,       -7.5f,   65504.f, 1e-30f, 3.3e-39f};
  for (DType t : {DType::F16, DType::BF16}) {
    Fusion f("narrow_quotients");
    Dim N = Dim::sym("N");
    Tensor a = f.input("a", DType::F32, {N});
    Tensor b = f.input("b", DType::F32, {N});
    f.output(cast(a / b, t));
    const int64_t n = int64_t(specials.size() * specials.size()) + 1001;
    std::vector<HostTensor> in = make_random_inputs(f, {{n}, {n}}, 5);
    for (size_t i = 0; i < specials.size(); ++i)
      for (size_t j = 0; j < specials.size(); ++j) {
        in[0].set(int64_t(i * specials.size() + j), specials[i]);
        in[1].set(int64_t(i * specials.size() + j), specials[j]);
      }
    const auto want = run_reference(f, in);
    Executor ex(f);
    const auto got = ex.run_host(in);
    const std::string what = std::string("narrow quotients ") + std::string(dtype_name(t));
    // Bit patterns: NaN for NaN, infinities and zeros (either sign of zero) exact, finite values
    // within one unit in the last place of the narrow dtype (adjacent patterns of one sign).
    const bool bf = t == DType::BF16;
    auto is_nan = [&](uint16_t h) { return (h & 0x7fff) > (bf ? 0x7f80 : 0x7c00); };
    auto is_inf = [&](uint16_t h) { return (h & 0x7fff) == (bf ? 0x7f80 : 0x7c00); };
    const auto* g = reinterpret_cast<const uint16_t*>(got[0].contiguous().data());
    const auto* w = reinterpret_cast<const uint16_t*>(want[0].contiguous().data());
    int bad = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint16_t x = g[i], y = w[i];
      const bool ok = is_nan(y) ? is_nan(x)
                      : (is_inf(x) || is_inf(y) || !(y & 0x7fff)) ? (x == y || !((x | y) & 0x7fff))
                                                                   : ((x ^ y) & 0x8000) == 0 && std::abs(int(x) - int(y)) <= 1;
      if (!ok && ++bad <= 5) {
        char line[160];
        std::snprintf(line, sizeof line, "%s: %g / %g gave bits 0x%04x, eager 0x%04x", dtype_name(t).data(), in[0].get(i),
                      in[1].get(i), unsigned{x}, unsigned{y});
        ADD_FAILURE() << line;
      }
    }
    EXPECT_EQ(bad, 0) << what;
  }
}

// A program over inputs a and b of `t`, both [B, H], whose outputs `outputs` adds, run at H =
// 1024 and 133 with every pair of `specials` set somewhere in a and b, contiguous and misaligned:
// its first `exact` outputs bit for bit the reference's (any NaN for a NaN), the rest close.
void expect_special_pairs(const std::string& name, DType t, const std::function<void(Fusion&, Tensor, Tensor)>& outputs,
                          const std::vector<float>& specials, size_t exact, int seed) {
  Fusion f(name);
  const Dim B = Dim::sym("B"), H = Dim::sym("H");
  outputs(f, f.input("a", t, {B, H}), f.input("b", t, {B, H}));
  for (int64_t h : {1024, 133}) {
    const int64_t rows = int64_t(specials.size() * specials.size()) / h + 3;
    std::vector<HostTensor> in = make_random_inputs(f, {{rows, h}, {rows, h}}, seed);
    for (size_t i = 0; i < specials.size(); ++i)
      for (size_t j = 0; j < specials.size(); ++j) {
        // Spread over the vectors: most stay all in range, so both paths run side by side.
        const int64_t at = int64_t(i * specials.size() + j) * 7 % (rows * h);
        in[0].set(at, specials[i]);
        in[1].set(at, specials[j]);
      }
    const auto want = run_reference(f, in);
    for (Layout layout : {Layout::Contiguous, Layout::Misaligned}) {
      Executor ex(f);
      std::vector<DeviceTensor> dev;
      for (const HostTensor& h_in : in) dev.push_back(upload(h_in, layout));
      std::vector<HostTensor> got;
      for (const DeviceTensor& d : ex.run(dev)) got.push_back(to_host(d));
      for (size_t o = exact; o < want.size(); ++o) expect_close(got[o], want[o], f.name() + " output " + std::to_string(o));
      for (size_t o = 0; o < exact; ++o) {
        const HostTensor g = got[o].contiguous(), w = want[o].contiguous();
        const size_t bytes = dtype_size(w.dtype);
        int bad = 0;
        for (int64_t i = 0; i < w.numel(); ++i) {
          const double x = g.get(i), y = w.get(i);
          const bool same = std::isnan(y) ? std::isnan(x) : std::memcmp(g.data() + i * bytes, w.data() + i * bytes, bytes) == 0;
          if (!same && ++bad <= 5)
            ADD_FAILURE() << f.name() << " output " << o << " H=" << h << " element " << i << ": a=" << in[0].get(i)
                          << " b=" << in[1].get(i) << " gave " << x << ", eager " << y;
        }
        EXPECT_EQ(bad, 0) << f.name() << " output " << o << " H=" << h << (layout == Layout::Misaligned ? " misaligned" : "");
      }
    }
  }
}

// f32 quotients with f32 results take the IEEE division's fast path a vector at a time and
// make the vector again with a / b where an operand lies outside its range (div_checked): bit
// for bit eager's quotient for operands at and past the range's ends, zeros, infinities, NaN and
// subnormals, as the quotient of a quotient and as a reciprocal (and f32 sigmoid and silu, whose
// division is checked too, within expf's error); contiguous and misaligned.
TEST(GpuExecutor, F32QuotientsAreIEEE) {
  SKIP_WITHOUT_GPU();
  auto outputs = [](Fusion& f, Tensor a, Tensor b) {
    Tensor q = a / b;
    f.output(q);
    f.output(q / (abs(a) + 1.0));
    f.output(reciprocal(b));
    f.output(sigmoid(a));  // 1 / (1 + expf(-a)): close, as expf is
    f.output(silu(b));
  };
  expect_special_pairs("f32_quotients", DType::F32, outputs,
                       {0.f, -0.f, INFINITY, -INFINITY, NAN, 1e-40f, -3e-42f, 1.4e-45f, 1e-38f, 3e38f, -2e38f, 1.f, -7.5f,
                        0x1p-62f, 0x1p62f, 0x1.fffffep-63f, 0x1.000002p62f, 0x1.8p-70f, -0x1p70f, 1e-30f, 3.3e-39f,
                        0x1.fffffep127f},
                       3, 9);
}

// Quotients of bf16 values rounded to bf16 take the reciprocal's product (div_narrow) and equal
// eager's bit for bit (exhaustive over the pairs on the device: bench/experiments/f16_div_check.cu),
// divisors over 2^126 and subnormal ones included: their reciprocals are scaled into range, so a
// huge divisor gives a subnormal quotient rather than zero (the flushing reciprocal alone gave 0).
TEST(GpuExecutor, Bf16QuotientsAreEagers) {
  SKIP_WITHOUT_GPU();
  auto outputs = [](Fusion& f, Tensor a, Tensor b) {
    f.output(a / b);
    f.output(b / a);
  };
  expect_special_pairs("bf16_quotients", DType::BF16, outputs,
                       {0.f, -0.f, INFINITY, -INFINITY, NAN, 1e-40f, -3e-42f, 9.2e-41f, 1.2e-38f, 3e38f, -2e38f, 1.f,
                        -7.5f, 0x1p126f, 0x1p127f, -0x1.fep127f, 0x1p-126f, 0x1p-127f, 0.3f, 1e30f, -1e-30f, 5e37f},
                       2, 11);
}

TEST(GpuExecutor, ReductionsKeepdimAndAxes) {
  SKIP_WITHOUT_GPU();
  Fusion f("red");
  Tensor x = f.input("x", DType::F32, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
  f.output(sum(x, {2}));
  f.output(max(x, {1, 2}, true));
  f.output(min(x, {0}));  // an outer reduction
  f.output(mean(x, {-1}, true));
  auto vm = var_mean(x, {2}, 1, false);
  f.output(vm.var);
  f.output(vm.mean);
  f.output(sum(x));
  check(f, {{3, 17, 301}}, Layout::Contiguous, "reductions");
  check(f, {{3, 17, 301}}, Layout::Transposed, "reductions transposed");
}

TEST(GpuExecutor, ViewsCatAndMatmul) {
  SKIP_WITHOUT_GPU();
  Fusion f("views");
  Tensor x = f.input("x", DType::F32, {Dim(6), Dim(10)});
  Tensor w = f.input("w", DType::F32, {Dim(10), Dim(4)});
  f.output(permute(x, {1, 0}) * 2.0);
  f.output(reshape(permute(x, {1, 0}), {Dim(60)}));  // needs a copy
  f.output(cat({slice(x, 1, 0, 3), slice(x, 1, 5, 9)}, 1));
  f.output(relu(matmul(x, w)));
  f.output(unsqueeze(sum(x, {1}), 1) + x);
  check(f, {{6, 10}, {10, 4}}, Layout::Contiguous, "views");
  check(f, {{6, 10}, {10, 4}}, Layout::Transposed, "views transposed");
}

// Matmuls that run as reduction kernels (passes/small_matmuls.h), in every form
// (tests/support/small_matmul_programs.h): one launch each, no library call, any operand layout.
TEST(GpuExecutor, SmallMatmulsAsReductions) {
  SKIP_WITHOUT_GPU();
  for (const solder::testing::SmallMatmulProgram& p : solder::testing::small_matmul_programs()) {
    const Fusion f = parse_fusion(p.text);
    const auto shapes = resolve_input_shapes(f, no_shapes, {});
    for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Misaligned}) {
      const std::string launches = check(f, shapes, l, p.name);
      EXPECT_EQ(launches.find("cublasLt_matmul"), std::string::npos) << p.name << ": " << launches;
    }
  }
}

// Math after a reshape of a computed value in that value's kernel (passes/math_before_reshapes.h):
// a group norm with its weights, residual and SiLU; a chain with a per-channel bias. Odd sizes,
// inputs transposed and misaligned; one kernel each.
TEST(GpuExecutor, MathAfterReshapesInOneKernel) {
  SKIP_WITHOUT_GPU();
  for (const solder::testing::ReshapeMathProgram& p : solder::testing::reshape_math_programs()) {
    const Fusion f = parse_fusion(p.text);
    const bool gn = p.name.rfind("group_norm", 0) == 0;
    for (const Bindings& b : gn ? std::vector<Bindings>{{{"N", 3}, {"H", 17}, {"W", 19}}, {{"N", 2}, {"H", 64}, {"W", 64}}}
                                : std::vector<Bindings>{{{"B", 7}, {"C", 33}}, {{"B", 64}, {"C", 1000}}})
      for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Misaligned}) {
        const std::string launches = check(f, resolve_input_shapes(f, no_shapes, b), l, p.name);
        if (l == Layout::Contiguous) EXPECT_EQ(std::count(launches.begin(), launches.end(), ';'), 1) << p.name << ": " << launches;
      }
  }
}

// Pads of several dims read through a pad of a pad (tests/support/pad_programs.h): F.pad of H and
// W, with a residual, a cat in a cat, pads by hand. Odd sizes and conv-like ones, inputs
// transposed and misaligned; one kernel each.
TEST(GpuExecutor, PadsOfSeveralDimsInOneKernel) {
  SKIP_WITHOUT_GPU();
  for (const solder::testing::PadProgram& p : solder::testing::pad_programs()) {
    const Fusion f = parse_fusion(p.text);
    for (const Bindings& b : {Bindings{{"N", 2}, {"C", 3}, {"H", 5}, {"W", 7}, {"B", 6}}, Bindings{{"N", 4}, {"C", 64}, {"H", 56}, {"W", 56}, {"B", 1000}}})
      for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Misaligned}) {
        const std::string launches = check(f, resolve_input_shapes(f, no_shapes, b), l, p.name);
        if (l == Layout::Contiguous) EXPECT_EQ(std::count(launches.begin(), launches.end(), ';'), 1) << p.name << ": " << launches;
      }
  }
}

TEST(GpuExecutor, Fp8SaturationAndOverflow) {
  SKIP_WITHOUT_GPU();
  for (const char* name : {"w2_fp8_f32_e4m3_nosat", "w2_fp8_f32_e5m2_nosat", "w2_fp8_bf16_e4m3_sat"}) {
    Fusion f = make_workload(name);
    // Values that overflow both formats after scaling by the random scale (|scale| < 2).
    HostTensor a = random_tensor(f.value(f.inputs()[0]).dtype, {4099}, 3, -80000.0, 80000.0);
    HostTensor s = random_tensor(DType::F32, {}, 4, 0.5, 2.0);
    auto want = run_reference(f, {a, s});
    Executor ex(f);
    auto got = ex.run_host({a, s});
    for (size_t i = 0; i < want.size(); ++i) expect_close(got[i], want[i], std::string(name) + " output " + std::to_string(i));
  }
}

TEST(GpuExecutor, FullReductionsOfEveryAccumulatorKind) {
  SKIP_WITHOUT_GPU();
  Fusion f("full");
  Tensor x = f.input("x", DType::F64, {Dim::sym("N")});
  Tensor i = f.input("i", DType::I32, {Dim::sym("N")});
  f.output(sum(x));
  f.output(max(x));
  f.output(min(i));
  f.output(sum(i));
  f.output(max(gt(x, 0.0)));
  check(f, {{100003}, {100003}}, Layout::Contiguous, "full reductions");
}

// var_mean over every dim (shifted sums per thread, doubles across blocks): f32 and bf16 inputs,
// odd and tiny sizes, strided inputs, and a mean far from zero (1000 + N(0, 1)) whose variance
// must not drown in the mean's square.
TEST(GpuExecutor, VarMeanOverEveryDim) {
  SKIP_WITHOUT_GPU();
  for (const char* dt : {"f32", "bf16"}) {
    Fusion f = parse_fusion("fusion vm {\n  input x: " + std::string(dt) +
                            "[B, H]\n  t = cast(x, dtype=f32)\n  v, m = var_mean(t, axes=[0, 1], correction=1, keepdim=false)\n"
                            "  output v\n  output m\n}\n");
    for (auto [b, h] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {1, 2}, {3, 5}, {257, 4097}, {2048, 2048}})
      for (Layout l : {Layout::Contiguous, Layout::Sliced, Layout::Transposed, Layout::Misaligned})
        check(f, {{b, h}}, l, std::string(dt) + " var_mean B=" + std::to_string(b) + " H=" + std::to_string(h));
    auto shapes = resolve_input_shapes(f, no_shapes, {{"B", 1000}, {"H", 3001}});
    std::vector<HostTensor> in = make_random_inputs(f, shapes, 5);
    for (int64_t i = 0; i < in[0].numel(); ++i) in[0].set(i, in[0].get(i) + 1000.0);
    auto want = run_reference(f, in);
    Executor ex(f);
    auto got = ex.run({to_device(in[0])});
    EXPECT_NEAR(to_host(got[0]).get(0), want[0].get(0), 2e-3 * std::fabs(want[0].get(0))) << dt << " variance over a large mean";
    EXPECT_NEAR(to_host(got[1]).get(0), want[1].get(0), 1e-5 * std::fabs(want[1].get(0))) << dt << " mean";
  }
}

// A 16-bit reduction result is rounded to its dtype before the epilogue uses it: an f16 sum
// that overflows is inf (as eager's), so sqrt(sum) is inf, not the square root of the float sum.
TEST(GpuExecutor, FullReductionResultsRoundBeforeTheEpilogue) {
  SKIP_WITHOUT_GPU();
  Fusion f = parse_fusion(
      "fusion sumabs {\n  input x: f16[B, H]\n  a = abs(x)\n  s = sum(a, axes=[0, 1], keepdim=false)\n"
      "  y = sqrt(s)\n  output y\n}\n");
  auto shapes = resolve_input_shapes(f, no_shapes, {{"B", 1024}, {"H", 1000}});
  std::vector<HostTensor> in = make_random_inputs(f, shapes, 3);
  auto want = run_reference(f, in);
  ASSERT_TRUE(std::isinf(want[0].get(0))) << "the reference's f16 sum of 1M |x| overflows";
  Executor ex(f);
  EXPECT_TRUE(std::isinf(to_host(ex.run({to_device(in[0])})[0]).get(0)));
}

// A row staged in exactly 48 KiB of dynamic shared memory (f32 softmax over 12288 columns) by a
// kernel that also has static shared memory: the launch must raise the kernel's dynamic limit
// (48 KiB less the static bytes), or it is refused as an invalid argument (variant sweep, seed 3).
TEST(GpuExecutor, DynamicSharedMemoryBesideStaticPartials) {
  SKIP_WITHOUT_GPU();
  Fusion f = parse_fusion(
      "fusion sm {\n  input x: f32[B, H]\n  c = constant(value=0.125, dtype=f32)\n  t0 = mul(x, c)\n"
      "  t2 = max(t0, axes=[1], keepdim=true)\n  t3 = sub(t0, t2)\n  t4 = exp(t3)\n"
      "  t5 = sum(t4, axes=[1], keepdim=true)\n  t6 = div(t4, t5)\n  output t6\n}\n");
  check(f, {{1, 12288}}, Layout::Contiguous, "softmax B=1 H=12288");
  const std::string params = check(f, {{257, 12288}}, Layout::Contiguous, "softmax B=257 H=12288");
  EXPECT_NE(params.find("smem:49152"), std::string::npos) << "the case no longer stages 48 KiB: " << params;
}

// Pointwise rows of odd length (phase-shifted vectors, masked at both ends; the bias element by
// element), with outputs of two widths, at odd sizes and in every layout (a misaligned input
// whose phase differs from the output's takes the plain plan).
TEST(GpuExecutor, PhaseShiftedPointwiseRows) {
  SKIP_WITHOUT_GPU();
  Fusion f = parse_fusion(
      "fusion ph {\n  input x: bf16[B, H]\n  input b: f32[H]\n  input r: bf16[B, 1]\n  t = cast(x, dtype=f32)\n"
      "  u = add(t, b)\n  s = cast(r, dtype=f32)\n  v = mul(u, s)\n  y = cast(v, dtype=bf16)\n  output y\n  output v\n}\n");
  for (int64_t h : {5, 18, 333, 4097})
    for (int64_t bsz : {3, 64})
      for (Layout l : {Layout::Contiguous, Layout::Sliced, Layout::Misaligned, Layout::Transposed}) {
        const std::string what = "B=" + std::to_string(bsz) + " H=" + std::to_string(h) + " layout " + std::to_string(static_cast<int>(l));
        const std::string params = check(f, {{bsz, h}, {h}, {bsz, 1}}, l, what);
        if (l == Layout::Contiguous && h == 4097) EXPECT_NE(params.find("phased"), std::string::npos) << what << ": " << params;
      }
}

// A cat's pieces read in one kernel (passes/cat_pieces.cpp): rotate-half RoPE (pads of two
// halves of x, a window picking the piece), unequal pieces along the last and a leading axis,
// and a pad written by hand, at odd sizes and in every layout. Every read of a pad is masked
// to its source (compute-sanitizer's memcheck runs these in scripts/device.sh).
// Per-row inputs of prefetching inner plans (a softmax of where(m, x, x * s) with m a bool and
// s a scale of [B, M, 1]): loaded with the next row's prefetch, into a register each, and taken
// at the row's top. The prefetch in shared memory (K = 1024), in registers with tickets (rows of
// 768 at B x M = 111), phased rows (K = 1000), rows of 9; misaligned inputs; and pinned without
// the prefetch and without tickets.
TEST(GpuExecutor, PrefetchedRowInputs) {
  SKIP_WITHOUT_GPU();
  for (const char* dt : {"bf16", "f16", "f32"}) {
    const std::string t = dt;
    const Fusion f = parse_fusion("fusion row_inputs_softmax {\n  input x: " + t + "[B, M, K]\n  input m: bool[B, M, 1]\n  input s: " + t +
                                  "[B, M, 1]\n  xs = mul(x, s)\n  y = where(m, x, xs)\n  xf = cast(y, dtype=f32)\n"
                                  "  mx = max(xf, axes=[2], keepdim=true)\n  d = sub(xf, mx)\n  e = exp(d)\n"
                                  "  se = sum(e, axes=[2], keepdim=true)\n  z = div(e, se)\n  o = cast(z, dtype=" + t + ")\n  output o\n}\n");
    for (const Bindings& b : std::vector<Bindings>{{{"B", 64}, {"M", 130}, {"K", 1024}},
                                                   {{"B", 3}, {"M", 37}, {"K", 768}},
                                                   {{"B", 128}, {"M", 77}, {"K", 1000}},
                                                   {{"B", 2}, {"M", 5}, {"K", 9}}})
      for (Layout l : {Layout::Contiguous, Layout::Misaligned})
        for (const std::string plan : {"", "tickets=0", "prefetch=0"}) {
          const std::string what = t + " row_inputs_softmax" + sizes_text(b) + " layout " + std::to_string(static_cast<int>(l)) + " " + plan;
          const std::string launches = check_against_reference(f, resolve_input_shapes(f, {}, b), l, what, {.seed = 19, .plan = plan});
          if (plan.empty() && l == Layout::Contiguous) EXPECT_NE(launches.find("prefetch"), std::string::npos) << what << ": " << launches;
        }
  }
}

TEST(GpuExecutor, CatPiecesInOneKernel) {
  SKIP_WITHOUT_GPU();
  for (const char* dt : {"f16", "bf16", "f32"})
    for (int64_t k : {128, 6, 64}) {
      const std::string h = std::to_string(k / 2), K = std::to_string(k), t = dt;
      Fusion f = parse_fusion("fusion rope {\n  input x: " + t + "[B, M, " + K + "]\n  input c: " + t + "[M, " + K +
                              "]\n  input s: " + t + "[M, " + K + "]\n  a = slice(x, axis=2, start=" + h + ", end=" + K +
                              ")\n  n = neg(a)\n  b = slice(x, axis=2, start=0, end=" + h +
                              ")\n  rot = cat(n, b, axis=2)\n  xc = mul(x, c)\n  rs = mul(rot, s)\n  y = add(xc, rs)\n  output y\n}\n");
      for (auto [bsz, m] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {3, 7}, {16, 64}})
        for (Layout l : {Layout::Contiguous, Layout::Sliced, Layout::Misaligned, Layout::Transposed}) {
          const std::string what = t + " rope K=" + K + " B=" + std::to_string(bsz) + " M=" + std::to_string(m);
          const std::string params = check(f, {{bsz, m, k}, {m, k}, {m, k}}, l, what);
          if (l == Layout::Contiguous && k == 128 && t != "f32") EXPECT_NE(params.find("vec=8"), std::string::npos) << what << ": " << params;
        }
    }
  Fusion three = parse_fusion(
      "fusion three {\n  input x: f32[B, 5]\n  input y: f32[B, 16]\n  input z: bf16[B, 3]\n  input r: f32[B, 1]\n"
      "  tx = tanh(x)\n  my = mul(y, r)\n  cz = cast(z, dtype=f32)\n  k = cat(tx, my, cz, axis=1)\n  e = exp(k)\n"
      "  output e\n  output k\n}\n");
  Fusion lead = parse_fusion(
      "fusion lead {\n  input x: f16[3, H]\n  input y: f16[4, H]\n  t = relu(x)\n  k = cat(t, y, axis=0)\n  o = add(k, k)\n  output o\n}\n");
  Fusion padded = parse_fusion("fusion p {\n  input x: f32[B, H]\n  q = pad(x, axis=1, start=8, end=5)\n  e = exp(q)\n  output e\n}\n");
  for (Layout l : {Layout::Contiguous, Layout::Sliced, Layout::Misaligned, Layout::Transposed}) {
    for (int64_t bsz : {1, 37, 1000}) check(three, {{bsz, 5}, {bsz, 16}, {bsz, 3}, {bsz, 1}}, l, "three pieces B=" + std::to_string(bsz));
    for (int64_t h : {1, 33, 4096}) check(lead, {{3, h}, {4, h}}, l, "leading axis H=" + std::to_string(h));
    for (int64_t h : {3, 64, 1000}) check(padded, {{9, h}}, l, "pad H=" + std::to_string(h));
  }
  // RoPE of a matmul's permuted heads (a model's q projection): the pads read the library's
  // result in place.
  for (int64_t sq : {1, 7, 100}) {
    const std::string S = std::to_string(sq), T = std::to_string(2 * sq);
    Fusion proj = parse_fusion(
        "fusion rope_q {\n  input x: f32[" + T + ", 256]\n  input w: f32[256, 256]\n  input c: f32[" + S + ", 64]\n  input s: f32[" + S +
        ", 64]\n  q = matmul(x, w)\n  q4 = reshape(q, shape=[2, " + S + ", 4, 64])\n  qt = permute(q4, axes=[0, 2, 1, 3])\n"
        "  a = slice(qt, axis=3, start=32, end=64)\n  n = neg(a)\n  b = slice(qt, axis=3, start=0, end=32)\n"
        "  rot = cat(n, b, axis=3)\n  qc = mul(qt, c)\n  rs = mul(rot, s)\n  y = add(qc, rs)\n  output y\n}\n");
    check(proj, {{2 * sq, 256}, {256, 256}, {sq, 64}, {sq, 64}}, Layout::Contiguous, "rope of a matmul S=" + S);
  }
}

// Reductions without keepdim followed by scalar epilogues (keep_reduced_dims): the epilogue in
// the reduction's kernel at the kept shape, the output a view that drops the dims. Inner, outer
// and mixed axes; var_mean's two results; odd sizes, size-1 dims, misaligned and transposed
// inputs.
TEST(GpuExecutor, ReductionEpiloguesAtTheKeptShape) {
  SKIP_WITHOUT_GPU();
  const Fusion f = load_program(std::string(SOLDER_SOURCE_DIR) + "/tests/data/reduction_epilogues.fusion");
  for (const Bindings& b : std::vector<Bindings>{{{"B", 5}, {"M", 7}, {"K", 33}}, {{"B", 1}, {"M", 1000}, {"K", 768}},
                                                 {{"B", 64}, {"M", 3}, {"K", 4097}}, {{"B", 2}, {"M", 1}, {"K", 1}}})
    for (Layout l : {Layout::Contiguous, Layout::Misaligned, Layout::Transposed}) {
      std::string what = "epilogues layout " + std::to_string(static_cast<int>(l));
      for (const auto& [k, v] : b) what += " " + k + "=" + std::to_string(v);
      check_against_reference(f, resolve_input_shapes(f, {}, b), l, what, {.seed = 17});
    }
}

// Reductions over dims apart in memory ([0, 2] of [A, B, C]): their input is addressed per
// element (General), as vectors where each lies in one unit-stride run of C (general/seg: C a
// multiple of the vector, aligned), else one element per thread.
TEST(GpuExecutor, ReductionsOverDimsApartInMemory) {
  SKIP_WITHOUT_GPU();
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    Fusion f("apart");
    Tensor x = f.input("x", t, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
    Tensor xf = t == DType::F32 ? x : cast(x, DType::F32);
    f.output(sum(xf, {0, 2}));
    f.output(max(x, {0, 2}, true));
    auto vm = var_mean(xf, {0, 2}, 1, false);
    f.output(vm.var);
    f.output(vm.mean);
    for (auto [a, b, c] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{2, 1000, 512}, {8, 3, 96}, {3, 17, 301}, {2, 5, 16}, {5, 33, 8}})
      for (Layout l : {Layout::Contiguous, Layout::Sliced, Layout::Misaligned, Layout::Transposed})
        check(f, {{a, b, c}}, l, std::string(dtype_name(t)) + " [0, 2] of " + std::to_string(a) + "x" + std::to_string(b) + "x" + std::to_string(c));
  }
}
