// Golden kernels: the generated source of every example (and bench program) at its size
// classes, planned on the H100 profile for contiguous inputs, checked in under tests/golden/.
// A refactor must leave them unchanged; a deliberate change shows exactly which kernels moved
// (and each needs a same-run device measurement). To accept a change:
//   SOLDER_UPDATE_GOLDEN=1 ./build/golden_test
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/device_runtime.h"
#include "ir/parser.h"
#include "programs/load_program.h"
#include "programs/run_inputs.h"
#include "solder/executor.h"

using namespace solder;
namespace fs = std::filesystem;

namespace {

struct GoldenCase {
  std::string program;  // examples/ or bench/programs/ file, without .fusion
  std::vector<Bindings> sizes;
  bool contiguous_outputs = false;  // ExecutorOptions::contiguous_outputs (views as outputs are written)
};

std::vector<Bindings> rows_by(std::initializer_list<int64_t> hs, int64_t b = 8192) {
  std::vector<Bindings> out;
  for (int64_t h : hs) out.push_back({{"B", b}, {"H", h}});
  return out;
}

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  // Norms: aligned and phase-shifted rows, short and long rows (registers, shared memory,
  // weight ring, clusters, looped), and few rows.
  for (const char* w1 : {"examples/w1_layer_norm_fused", "examples/w1_layer_norm_fused_bf16",
                         "examples/w1_layer_norm_fused_f32"}) {
    auto sizes = rows_by({768, 1024, 4096, 4098, 5140, 16384, 20480, 65536});
    sizes.push_back({{"B", 64}, {"H", 1024}});
    cases.push_back({w1, sizes});
  }
  for (const char* w5 : {"examples/w5_rms_norm_bf16", "examples/w5_softmax_bf16", "examples/w5_gelu_bias_bf16"})
    cases.push_back({w5, rows_by({770, 1024, 4096, 20480, 65536})});
  for (const char* ty : {"bf16", "f32"})
    for (const char* fmt : {"e4m3", "e5m2"})
      for (const char* sat : {"sat", "nosat"})
        cases.push_back({std::string("examples/w2_fp8_") + ty + "_" + fmt + "_" + sat,
                         {{{"N", int64_t{1} << 21}}, {{"N", 1000003}}}});
  cases.push_back({"examples/w3_split_stack", {{{"B", 1024}}}});
  cases.push_back({"examples/w3_combined", {{{"B", 1024}}}});
  for (int i = 1; i <= 6; ++i) cases.push_back({"examples/w4_einsum_" + std::to_string(i), {{}}});
  // Outer (column) reductions: the grid form (tall inputs), odd sizes (narrow vectors, a
  // partial last tile), a middle axis, batch-norm statistics with an epilogue.
  cases.push_back({"examples/outer_colsum_bf16", {{{"B", 16384}, {"H", 3072}}, {{"B", 37}, {"H", 1030}}}});
  cases.push_back({"examples/outer_var_mean_bf16", {{{"B", 100352}, {"H", 512}}}});
  cases.push_back({"examples/outer_mean_mid_f16", {{{"B", 8192}, {"H", 1024}}}});
  cases.push_back({"examples/outer_bn_stats_f16", {{{"B", 32}, {"H", 512}}}});
  // Outer persistent normalizations: held rows (softmax over dim 0, a masked softmax and a
  // log_softmax over the middle axis, a layer norm of a transposed view with its output written
  // element by element), re-read rows (tall softmax, rms norm of a long transposed view), and a
  // reduction over two axes of a permuted view walked in memory order.
  cases.push_back({"examples/outer_softmax_dim0_f32", {{{"B", 8192}, {"H", 4096}}, {{"B", 100003}, {"H", 64}}}});
  cases.push_back({"examples/outer_softmax_mid_mask_f16", {{{"B", 16}, {"M", 128}, {"K", 4097}}}});
  cases.push_back({"examples/outer_log_softmax_mid_f16", {{{"B", 64}, {"M", 100}, {"K", 1024}}}});
  cases.push_back({"examples/outer_layer_norm_T_f16", {{{"B", 5120}, {"H", 6144}}}});
  cases.push_back({"examples/outer_rms_norm_T_f32", {{{"B", 2048}, {"H", 16384}}}});
  cases.push_back({"examples/reduce_mean12_T_bf16", {{{"B", 32}, {"K", 1000}, {"M", 1024}}}});
  // Transposes: a transposed input beside a contiguous one (16-byte vectors both sides; odd
  // sizes: single elements), and with contiguous outputs a transpose-copy, NCHW -> NHWC (the copy
  // executor's kernel) and a pointwise kernel writing its result transposed (staged output).
  cases.push_back({"examples/transpose_add_bf16", {{{"B", 8192}, {"H", 8192}}, {{"B", 37}, {"H", 1030}}}});
  cases.push_back({"examples/transpose_copy_f16", {{{"B", 8192}, {"H", 8192}}}, true});
  cases.push_back({"examples/transpose_nchw_nhwc_f16", {{{"B", 32}, {"H", 512}}}, true});
  cases.push_back({"examples/transpose_tanh_out_bf16", {{{"B", 16384}, {"H", 4096}}}, true});
  for (const char* p : {"bench/programs/center", "bench/programs/ln_affine", "bench/programs/ln_plain",
                        "bench/programs/scale", "bench/programs/fp8_row_quant"})
    cases.push_back({p, rows_by({1024, 4098, 5140})});
  return cases;
}

std::string case_name(const GoldenCase& c, const Bindings& b) {
  std::string n = fs::path(c.program).filename().string();
  for (const auto& [sym, v] : b) n += "." + sym + std::to_string(v);
  return n;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The kernel's own code: every source holds the shared device runtime, kept once.
std::string kernel_body(std::string source) {
  const std::string_view rt = device_runtime_source();
  if (auto at = source.find(rt); at != std::string::npos) source.replace(at, rt.size(), "// <device_runtime.cuh>\n");
  return source;
}

// Kernel bodies (runtime left out) of a program text at one size.
std::vector<std::string> kernel_bodies(const std::string& text, const Bindings& b) {
  Fusion f = parse_fusion(text);
  Executor ex(f);
  std::vector<KernelSourceInfo> sources;
  ex.compile_for(resolve_input_shapes(f, {}, b), &sources);
  std::vector<std::string> out;
  for (const auto& s : sources) out.push_back(kernel_body(s.source));
  return out;
}

}  // namespace

// IR arithmetic rounds as eager's one-op kernels do (issue 29): divisions are divisions (not a
// product with a reciprocal), + - * are the rounding intrinsics (NVRTC contracts a * b + c into
// one FMA otherwise), no fast-math intrinsic in f32 results.
TEST(GoldenKernels, ArithmeticRoundsAsEager) {
  const std::string head = "fusion q {\n  input x: bf16[B, H]\n  input w: f32[H]\n"
                           "  m = max(x, axes=[1], keepdim=true)\n  a = cast(m, dtype=f32)\n"
                           "  xf = cast(x, dtype=f32)\n";
  const std::string programs[] = {
      head + "  s = div(xf, a)\n  c = constant(value=448, dtype=f32)\n  y = mul(s, c)\n  output y\n}\n",
      head + "  r = reciprocal(a)\n  y = mul(xf, r)\n  z = add(y, w)\n  output z\n}\n",
      head + "  p = mul(xf, w)\n  y = add(p, a)\n  output y\n}\n",
  };
  for (int64_t h : {1024, 5140}) {
    for (const std::string& text : programs) {
      for (const std::string& body : kernel_bodies(text, {{"B", 64}, {"H", h}})) {
        const std::string kernel = body.substr(body.find("__global__"));
        EXPECT_EQ(kernel.find("(1.0f / r"), std::string::npos) << "a division became a reciprocal product:\n" << kernel;
        EXPECT_EQ(kernel.find("__fdividef"), std::string::npos) << kernel;
        EXPECT_EQ(kernel.find("fmaf("), std::string::npos) << kernel;
        EXPECT_NE(kernel.find("__fmul_rn("), std::string::npos) << kernel;
      }
    }
    const std::string divide = kernel_bodies(programs[0], {{"B", 64}, {"H", h}})[0];
    EXPECT_NE(divide.find(")) / v"), std::string::npos) << "x / amax is one correctly rounded division:\n" << divide;
    EXPECT_EQ(divide.find("1.0f / "), std::string::npos) << divide;
    const std::string add = kernel_bodies(programs[2], {{"B", 64}, {"H", h}})[0];
    EXPECT_NE(add.find("__fadd_rn("), std::string::npos) << "x * w + a must not contract:\n" << add;
  }
}

// A negated f16/bf16 value is a value of its type: no rounding back (two instructions an
// element in a rotate-half RoPE); read by a native op, its sign bit flips.
TEST(GoldenKernels, NegationIsNotRounded) {
  for (const auto& [t, round] : {std::pair{"f16", "round_f16("}, {"bf16", "round_bf16("}}) {
    const std::string text = std::string("fusion q {\n  input x: ") + t + "[B, H]\n  input c: " + t +
                             "[B, H]\n  n = neg(x)\n  y = mul(n, c)\n  output y\n}\n";
    for (const std::string& body : kernel_bodies(text, {{"B", 64}, {"H", 1024}})) {
      const std::string kernel = body.substr(body.find("__global__"));
      EXPECT_EQ(kernel.find(std::string(round) + "-"), std::string::npos) << kernel;
      EXPECT_NE(kernel.find(" ^ 0x8000u"), std::string::npos) << kernel;
    }
  }
}

TEST(GoldenKernels, MatchCheckedIn) {
  const fs::path dir = fs::path(SOLDER_SOURCE_DIR) / "tests" / "golden";
  const bool update = std::getenv("SOLDER_UPDATE_GOLDEN") != nullptr;
  std::map<std::string, std::string> generated;  // file name -> text
  generated["device_runtime.cuh"] = std::string(device_runtime_source());
  for (const GoldenCase& c : golden_cases()) {
    Fusion f = load_program(std::string(SOLDER_SOURCE_DIR) + "/" + c.program + ".fusion");
    Executor ex(f, ExecutorOptions{"", c.contiguous_outputs});
    for (const Bindings& b : c.sizes) {
      std::vector<KernelSourceInfo> sources;
      auto records = ex.compile_for(resolve_input_shapes(f, {}, b), &sources);
      ASSERT_EQ(records.size(), sources.size());
      for (size_t k = 0; k < sources.size(); ++k)
        generated[case_name(c, b) + "." + sources[k].name + ".cu"] =
            "// plan: " + records[k].params + "\n" + kernel_body(sources[k].source);
    }
  }
  if (update) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& [name, text] : generated) std::ofstream(dir / name, std::ios::binary) << text;
    GTEST_SKIP() << "wrote " << generated.size() << " golden files to " << dir;
  }
  std::vector<std::string> changed, missing, stale;
  for (const auto& [name, text] : generated) {
    if (!fs::exists(dir / name)) missing.push_back(name);
    else if (read_file(dir / name) != text) changed.push_back(name);
  }
  for (const auto& e : fs::directory_iterator(dir))
    if (!generated.count(e.path().filename().string())) stale.push_back(e.path().filename().string());
  std::string report;
  for (const auto& n : changed) report += "  changed: " + n + "\n";
  for (const auto& n : missing) report += "  new:     " + n + "\n";
  for (const auto& n : stale) report += "  gone:    " + n + "\n";
  EXPECT_TRUE(report.empty()) << "generated kernels differ from tests/golden (" << generated.size()
                              << " files); if intended, run SOLDER_UPDATE_GOLDEN=1 build/golden_test and "
                                 "measure each changed kernel on the device:\n"
                              << report;
  // 84 since horizontal fusion: W3's sixteen norm kernels are one group kernel.
  EXPECT_GE(generated.size(), 84u) << "the golden corpus shrank";
}
