// The fusion text format: printing, parsing, round trips, and the example files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ops/workloads.h"
#include "solder/error.h"
#include "support/random_fusion.h"

using namespace solder;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Print -> parse -> print is a fixed point, and the parsed graph is the same graph.
void expect_round_trip(const Fusion& f) {
  std::string text = print_fusion(f);
  Fusion g = parse_fusion(text, f.name());
  ASSERT_EQ(print_fusion(g), text);
  EXPECT_EQ(g.hash(), f.hash()) << text;
  ASSERT_EQ(g.values().size(), f.values().size()) << text;
  for (size_t i = 0; i < f.values().size(); ++i) {
    EXPECT_EQ(g.values()[i].name, f.values()[i].name);
    EXPECT_EQ(g.values()[i].dtype, f.values()[i].dtype) << f.values()[i].name;
    EXPECT_EQ(shape_str(g.values()[i].shape), shape_str(f.values()[i].shape)) << f.values()[i].name;
  }
  EXPECT_EQ(g.inputs(), f.inputs());
  EXPECT_EQ(g.outputs(), f.outputs());
  verify(g);
}

}  // namespace

TEST(TextFormat, PrintsTheDocumentedForm) {
  Fusion f("ln");
  Tensor x = f.input("x", DType::F16, {Dim::sym("B"), Dim::sym("S") * Dim::sym("D")});
  Tensor xf = cast(x, DType::F32);
  auto [v, m] = var_mean(xf, {1}, 0, true);
  Tensor s = slice(xf, 1, 0);
  f.output(add(v, 1e-5));
  f.output(s);
  f.output(m);
  EXPECT_EQ(print_fusion(f),
            "fusion ln {\n"
            "  input x: f16[B, S*D]\n"
            "  t1 = cast(x, dtype=f32)\n"
            "  t2, t3 = var_mean(t1, axes=[1], keepdim=true, correction=0)\n"
            "  t4 = slice(t1, axis=1, start=0, end=end, step=1)\n"
            "  t5 = constant(value=1.0000000000000001e-05, dtype=f32)\n"
            "  t6 = add(t2, t5)\n"
            "  output t6\n"
            "  output t4\n"
            "  output t3\n"
            "}\n");
}

TEST(TextFormat, SpecialNumbersRoundTrip) {
  Fusion f("nums");
  Tensor x = f.input("x", DType::F32, {3});
  Tensor c = clamp(x, -std::numeric_limits<double>::infinity(), 448.0);
  Tensor k = constant(f, std::numeric_limits<double>::quiet_NaN(), DType::F32);
  Tensor z = constant(f, -0.0, DType::F64);
  Tensor t = constant(f, 0.1, DType::F32);
  f.output(c);
  f.output(k);
  f.output(z);
  f.output(t);
  std::string text = print_fusion(f);
  EXPECT_NE(text.find("lo=-inf, hi=448"), std::string::npos) << text;
  EXPECT_NE(text.find("value=nan"), std::string::npos) << text;
  EXPECT_NE(text.find("value=-0,"), std::string::npos) << text;
  Fusion g = parse_fusion(text);
  EXPECT_TRUE(std::signbit(g.nodes()[2].attrs.value));
  EXPECT_EQ(g.nodes()[3].attrs.value, 0.1);
  expect_round_trip(f);
}

TEST(TextFormat, ParsesHandWrittenProgramsWithDefaultsAndComments) {
  Fusion f = parse_fusion(R"(
    # a comment line
    fusion hand {   # trailing comment
      input x: bf16[B, 7]
      input s: f32[]
      y = mul(x, s)          # bf16 * rank-0 f32 stays bf16
      r = sum(y)             # axes left out: every axis
      c = clamp(y, hi=1.5)   # lo left out: -inf
      v = slice(x, axis=-1, start=-3)
      output r, c
      output v
    })");
  EXPECT_EQ(f.name(), "hand");
  EXPECT_EQ(f.value(f.find("y")).dtype, DType::BF16);
  EXPECT_EQ(shape_str(f.value(f.find("r")).shape), "[]");
  EXPECT_EQ(shape_str(f.value(f.find("v")).shape), "[B, 3]");
  EXPECT_EQ(f.outputs().size(), 3u);
  expect_round_trip(f);
}

TEST(TextFormat, ImplicitPromotionCastsDoNotStealFileNames) {
  // add(f16, bf16) inserts a cast the file never names; its fresh name "t2" must not block
  // the file's own t2 below.
  Fusion f = parse_fusion(R"(fusion p {
      input t0: f16[4]
      input t1: bf16[4]
      t3 = add(t0, t1)
      t2 = neg(t3)
      output t2
    })");
  EXPECT_EQ(f.value(f.find("t2")).producer, static_cast<int>(f.nodes().size()) - 1);
  std::string once = print_fusion(f);
  EXPECT_EQ(print_fusion(parse_fusion(once)), once);
}

TEST(TextFormat, RandomFusionsRoundTrip) {
  int nodes = 0;
  for (uint64_t seed = 0; seed < 250; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Fusion f = test_support::RandomFusion(seed).make(4 + static_cast<int>(seed % 12));
    nodes += static_cast<int>(f.nodes().size());
    expect_round_trip(f);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(nodes, 250 * 4);  // the generator does build programs, not just inputs
}

TEST(TextFormat, RandomFusionsCoverEveryOp) {
  std::vector<int> seen(static_cast<size_t>(Op::Linear) + 1, 0);
  for (uint64_t seed = 0; seed < 250; ++seed) {
    Fusion f = test_support::RandomFusion(seed).make(4 + static_cast<int>(seed % 12));
    for (const Node& n : f.nodes()) seen[static_cast<size_t>(n.op)] = 1;
  }
  for (size_t i = 0; i < seen.size(); ++i) {
    Op op = static_cast<Op>(i);
    if (op == Op::Matmul || op == Op::Linear) continue;  // covered by the workloads
    EXPECT_TRUE(seen[i]) << op_name(op) << " never generated";
  }
}

TEST(TextFormat, UnreadableFileNamesThePath) {
  try {
    load_fusion_file("/nonexistent/dir/x.fusion");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.fusion"), std::string::npos) << e.what();
  }
}

TEST(TextFormat, PrinterRejectsNamesThatWouldNotParse) {
  Fusion f("bad");
  Tensor x = f.input("has space", DType::F32, {2});
  f.output(neg(x));
  EXPECT_THROW(print_fusion(f), Error);
}

// Each examples/<workload>.fusion is what make_workload builds (after a normalizing parse +
// print). SOLDER_UPDATE_EXAMPLES=1 rewrites the files, keeping their leading comment lines.
TEST(Examples, MatchTheCppBuilders) {
  fs::path dir = fs::path(SOLDER_SOURCE_DIR) / "examples";
  bool update = std::getenv("SOLDER_UPDATE_EXAMPLES") != nullptr;
  for (const auto& name : workload_names()) {
    SCOPED_TRACE(name);
    std::string want = print_fusion(make_workload(name));
    fs::path p = dir / (name + ".fusion");
    if (update) {
      std::string header, existing = fs::exists(p) ? read_file(p) : "";
      std::istringstream lines(existing);
      for (std::string line; std::getline(lines, line) && line.rfind("#", 0) == 0;) header += line + "\n";
      std::ofstream(p) << header << want;
    }
    ASSERT_TRUE(fs::exists(p)) << p << " is missing (SOLDER_UPDATE_EXAMPLES=1 writes it)";
    EXPECT_EQ(print_fusion(load_fusion_file(p.string())), want);
  }
}

TEST(Examples, EveryFileIsAWorkloadAndRoundTrips) {
  auto names = workload_names();
  for (const auto& entry : fs::directory_iterator(fs::path(SOLDER_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".fusion") continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NE(std::find(names.begin(), names.end(), entry.path().stem().string()), names.end());
    Fusion f = load_fusion_file(entry.path().string());
    EXPECT_EQ(f.name(), entry.path().stem().string());
    expect_round_trip(f);
  }
}
