// Bounds on sizes, nesting and files (issue 29): checked size arithmetic, clamped slices,
// validation before anything runs, bounded reads of programs, reports and cache entries, and
// linear building/comparing of large inputs.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench/compare.h"
#include "ir/limits.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/passes.h"
#include "reference_test_util.h"
#include "runtime/kernel_cache.h"
#include "solder/error.h"

using namespace solder;
using namespace solder::test;
namespace fs = std::filesystem;

namespace {

// The message of the solder::Error `f` throws ("" if it throws nothing).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_ERROR(stmt, substring)                                              \
  do {                                                                             \
    std::string msg_ = error_of([&] { stmt; });                                    \
    EXPECT_NE(msg_.find(substring), std::string::npos) << "message: '" << msg_ << "'"; \
  } while (0)

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("solder_bounds_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

// ---- checked size arithmetic ---------------------------------------------------------------

TEST(CheckedSizes, OverflowIsAnErrorNamingTheQuantity) {
  EXPECT_EQ(checked_mul(int64_t{1} << 31, int64_t{1} << 31, "n"), int64_t{1} << 62);
  EXPECT_ERROR(checked_mul(int64_t{1} << 32, int64_t{1} << 32, "the count"), "the count overflows int64");
  EXPECT_ERROR(checked_add(INT64_MAX, 1, "the end"), "the end overflows int64");
  EXPECT_ERROR(checked_numel({4, -1}, "t"), "negative size");
}

TEST(CheckedSizes, SymbolicProductOverflowNamesInputAndDim) {
  Fusion f("p");
  Dim b = Dim::sym("B");
  f.input("y", DType::F32, {b});
  f.output(neg(f.input("x", DType::F32, {b * b * b * b})));
  EXPECT_ERROR(bind_shapes(f, {{65536}, {0}}), "input x is declared [B*B*B*B]: dim 0: size B*B*B*B overflows int64 for B=65536");
  Fusion g("q");
  Tensor y = g.input("y", DType::F32, {b});
  g.output(expand(y, {b * b * b, b}));
  EXPECT_ERROR(bind_shapes(g, {{65536}}), "overflows int64");
  EXPECT_ERROR(bind_shapes(g, {{65536}}), "value t");
}

TEST(CheckedSizes, HugeConstantShapesAreRefusedBeforeRunning) {
  Fusion f("wrap");
  f.output(neg(f.input("x", DType::F32, {4294967296, 4294967296})));
  EXPECT_ERROR(bind_shapes(f, {{4294967296, 4294967296}}), "input x");
  EXPECT_ERROR(bind_shapes(f, {{4294967296, 4294967296}}), "overflows int64");
  Fusion g("big");
  g.output(neg(g.input("x", DType::F32, {int64_t{4611686018427387905}, 4})));
  EXPECT_ERROR(bind_shapes(g, {{int64_t{4611686018427387905}, 4}}), "overflows int64");
  Fusion h("limit");
  h.output(neg(h.input("x", DType::F32, {int64_t{1} << 40})));
  std::string m = error_of([&] { bind_shapes(h, {{int64_t{1} << 40}}); });
  EXPECT_NE(m.find("needs 4.4e+03 GB"), std::string::npos) << m;
}

TEST(CheckedSizes, TensorLimitComesFromTheEnvironment) {
  Fusion f("lim");
  f.output(neg(f.input("x", DType::F32, {1000, 1000})));
  ::setenv("SOLDER_MAX_TENSOR_GB", "0.001", 1);
  std::string m = error_of([&] { bind_shapes(f, {{1000, 1000}}); });
  EXPECT_NE(m.find("needs 0.004 GB"), std::string::npos) << m;
  EXPECT_NE(m.find("set SOLDER_MAX_TENSOR_GB to raise it"), std::string::npos) << m;
  EXPECT_ERROR(HostTensor::empty(DType::F32, {1000, 1000}), "SOLDER_MAX_TENSOR_GB");
  ::setenv("SOLDER_MAX_TENSOR_GB", "banana", 1);
  EXPECT_ERROR(bind_shapes(f, {{1000, 1000}}), "is not a positive number of GB");
  ::unsetenv("SOLDER_MAX_TENSOR_GB");
  EXPECT_NO_THROW(bind_shapes(f, {{1000, 1000}}));
}

TEST(CheckedSizes, ReferenceMemoryCeiling) {
  Fusion f("mem");
  Dim n = Dim::sym("N");
  f.output(exp(f.input("x", DType::F32, {n})));
  auto x = HostTensor::empty(DType::F32, {1 << 20});
  ::setenv("SOLDER_MAX_REFERENCE_GB", "0.001", 1);
  std::string m = error_of([&] { run_reference(f, {x}); });
  ::unsetenv("SOLDER_MAX_REFERENCE_GB");
  EXPECT_NE(m.find("needs about"), std::string::npos) << m;
  EXPECT_NE(m.find("SOLDER_MAX_REFERENCE_GB"), std::string::npos) << m;
  EXPECT_NO_THROW(run_reference(f, {x}));
}

TEST(CheckedSizes, RankLimit) {
  Fusion f("rank");
  EXPECT_ERROR(f.input("x", DType::F32, Shape(kMaxRank + 1, Dim(1))), "more than the 32 dims");
  Tensor x = f.input("y", DType::F32, Shape(kMaxRank, Dim(1)));
  EXPECT_ERROR(unsqueeze(x, 0), "rank 33");
}

// ---- size expressions: depth, symbols, min/ceildiv -----------------------------------------

TEST(DimBounds, DeepExpressionsAreErrorsNotCrashes) {
  std::string sum = "B";  // distinct terms: like terms would combine into one
  for (int i = 0; i < 50000; ++i) sum += "+B" + std::to_string(i);
  EXPECT_ERROR(parse_dim(sum), "nested more than 1000 levels deep");
  std::string parens = std::string(100000, '(') + "B" + std::string(100000, ')');
  EXPECT_ERROR(parse_dim(parens), "nested more than 1000 levels deep");
  // In a program too: a located error.
  std::string prog = "fusion f {\n  input x: f32[" + sum + "]\n  y = neg(x)\n  output y\n}\n";
  EXPECT_ERROR(parse_fusion(prog, "deep.fusion"), "deep.fusion:2:");
  // The builder: a chain of 2000 additions stops at the limit.
  Dim d = Dim::sym("B");
  EXPECT_ERROR(
      for (int i = 0; i < 2000; ++i) d = d + Dim::sym("C" + std::to_string(i)), "nested more than");
  // Below the limit everything works (print, parse, evaluate).
  Dim ok = Dim::sym("B");
  for (int i = 0; i < 500; ++i) ok = ok + Dim::sym("B");
  EXPECT_EQ(parse_dim(ok.str()).eval({{"B", 2}}), 1002);
}

TEST(DimBounds, NumbersOutOfRangeAreErrors) {
  EXPECT_ERROR(parse_dim("99999999999999999999"), "does not fit int64");
  EXPECT_ERROR(parse_dim("9223372036854775807*2"), "overflows int64");
  EXPECT_ERROR(parse_dim("9223372036854775807+1"), "overflows int64");
}

TEST(DimBounds, SymbolNamesAreIdentifiers) {
  for (const char* bad : {"", "a+b", "2*B", "1B", "a b", "B)", "é"})
    EXPECT_ERROR(Dim::sym(bad), "is not an identifier");
  EXPECT_EQ(Dim::sym("_b2").str(), "_b2");
  // In the text format too: two names in one dim are not one name (`a b` once parsed as `ab`),
  // and sums and products print back as they were written.
  EXPECT_ERROR(parse_fusion("fusion s {\n  input x: f32[a b]\n  output x\n}\n"), "bad size");
  EXPECT_ERROR(parse_fusion("fusion s {\n  input x: f32[\"B\"]\n  output x\n}\n"), "unexpected character");
  const std::string odd = "fusion s {\n  input x: f32[a+b, 2*B]\n  output x\n}\n";
  EXPECT_EQ(print_fusion(parse_fusion(odd)), odd);
}

TEST(DimBounds, MinAndCeildivPrintParseAndEvaluate) {
  Dim b = Dim::sym("B");
  Dim d = Dim::ceildiv(Dim::min(b, 100) + Dim(-1) * Dim::min(b, 3), 2);
  EXPECT_EQ(d.str(), "ceildiv(min(B, 100)+-1*min(B, 3), 2)");
  EXPECT_EQ(parse_dim(d.str()), d);
  EXPECT_EQ(d.eval({{"B", 4}}), 1);     // [3:4:2] -> 1
  EXPECT_EQ(d.eval({{"B", 2}}), 0);     // [3:2] -> empty
  EXPECT_EQ(d.eval({{"B", 1000}}), 49);  // [3:100:2]
  EXPECT_EQ(Dim::min(7, 5).const_value(), 5);
  EXPECT_EQ(Dim::ceildiv(7, 2).const_value(), 4);
  EXPECT_ERROR(Dim::ceildiv(b, 0), "positive constant");
  EXPECT_EQ(parse_dim("min * 2").str(), "min*2");  // a symbol named min is still a symbol
}

// Like terms of a sum combine: a cat of x[..., h:] and x[..., :h] spans x's dim again, so one
// kernel covers the cat and its consumers (a RoPE over a symbolic head dim); terms and factors
// take one order, so sums that mean the same are equal (2+W is W+2).
TEST(DimBounds, LikeTermsCombine) {
  Dim k = Dim::sym("K"), b = Dim::sym("B");
  Dim tail = k + Dim(-1) * Dim::min(k, 256);
  EXPECT_EQ(tail.str(), "K+-1*min(K, 256)");
  EXPECT_EQ(tail + Dim::min(k, 256), k);
  EXPECT_EQ(((k + 2) + (b + -2)).str(), "B+K");
  EXPECT_EQ(k + 2, Dim(1) + k + 1);
  EXPECT_EQ((Dim(2) + k).str(), "K+2");
  EXPECT_EQ(parse_dim("W+H+2"), parse_dim("2+H+W"));
  EXPECT_EQ(parse_dim("-1*min(B, 2)+3+min(B, 6)").str(), "min(B, 6)+-1*min(B, 2)+3");
  EXPECT_EQ((k + 2) * b, (Dim(2) + k) * b);  // a sum's factor, in its own order
  EXPECT_EQ((k * b + Dim(3) * (b * k)).str(), "4*B*K");
  EXPECT_EQ((k + Dim(-1) * k).const_value(), 0);
  EXPECT_EQ((b + k).str(), "B+K");
  EXPECT_EQ(((k + 1) + 1).str(), "K+2");
}

// ---- slices clamp as torch's do -------------------------------------------------------------

TEST(SliceBounds, ConstantDimsClamp) {
  Fusion f("s");
  Tensor x = f.input("x", DType::F32, {4});
  Tensor a = slice(x, 0, 0, 100);
  Tensor b = slice(x, 0, 1, kSliceToEnd, INT64_MAX);
  Tensor c = slice(x, 0, int64_t{1} << 62, int64_t{1} << 62 | 5);
  Tensor d = slice(x, 0, -100, 2);
  Tensor e = slice(x, 0, INT64_MIN + 1, INT64_MAX - 1, 3);
  EXPECT_EQ(shape_str(a.shape()), "[4]");
  EXPECT_EQ(shape_str(b.shape()), "[1]");
  EXPECT_EQ(shape_str(c.shape()), "[0]");
  EXPECT_EQ(shape_str(d.shape()), "[2]");
  EXPECT_EQ(shape_str(e.shape()), "[2]");
  for (Tensor t : {a, b, c, d, e}) f.output(t);
  auto out = run_reference(f, {tensor(DType::F32, {4}, {1, 2, 3, 4})});
  expect_tensor(out[0], DType::F32, {4}, {1, 2, 3, 4});
  expect_tensor(out[1], DType::F32, {1}, {2});
  expect_tensor(out[2], DType::F32, {0}, {});
  expect_tensor(out[3], DType::F32, {2}, {1, 2});
  expect_tensor(out[4], DType::F32, {2}, {1, 4});
}

TEST(SliceBounds, SymbolicDimsClampAtRunTime) {
  Fusion f("sym");
  Dim b = Dim::sym("B");
  Tensor x = f.input("x", DType::F32, {b});
  Tensor y = slice(x, 0, 0, 100);
  Tensor z = slice(x, 0, 2, 7, 2);
  Tensor w = slice(x, 0, 3);
  EXPECT_EQ(shape_str(y.shape()), "[min(B, 100)]");
  f.output(y);
  f.output(z);
  f.output(w);
  verify(f);
  // The printed program parses back to the same one.
  Fusion g = parse_fusion(print_fusion(f), "sym.fusion");
  EXPECT_EQ(print_fusion(g), print_fusion(f));
  for (int64_t n : {0, 1, 3, 4, 6, 200}) {
    SCOPED_TRACE(n);
    std::vector<double> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<double>(i + 1));
    auto out = run_reference(f, {tensor(DType::F32, {n}, v)});
    std::vector<double> want_y(v.begin(), v.begin() + std::min<int64_t>(n, 100)), want_z, want_w;
    for (int64_t i = 2; i < std::min<int64_t>(n, 7); i += 2) want_z.push_back(v[i]);
    for (int64_t i = 3; i < n; ++i) want_w.push_back(v[i]);
    expect_tensor(out[0], DType::F32, {static_cast<int64_t>(want_y.size())}, want_y);
    expect_tensor(out[1], DType::F32, {static_cast<int64_t>(want_z.size())}, want_z);
    expect_tensor(out[2], DType::F32, {static_cast<int64_t>(want_w.size())}, want_w);
  }
}

TEST(SliceBounds, ClampedDimsStillReshape) {
  Fusion f("r");
  Dim b = Dim::sym("B");
  Tensor x = f.input("x", DType::F32, {b, 8});
  Tensor s = slice(x, 0, 0, 16);
  Tensor r = reshape(s, {-1});
  EXPECT_EQ(shape_str(r.shape()), "[8*min(B, 16)]");
  Tensor back = reshape(r, {Dim::min(b, 16), 2, -1});
  EXPECT_EQ(shape_str(back.shape()), "[min(B, 16), 2, 4]");
}

// ---- validation before anything runs ---------------------------------------------------------

TEST(Validation, NegativeTargetsAreRefusedWhenBuilt) {
  Fusion f("v");
  Dim b = Dim::sym("B");
  Tensor x = f.input("x", DType::F32, {b, 2});
  Tensor one = f.input("one", DType::F32, {1, 4});
  EXPECT_ERROR(expand(one, {-5, 4}), "negative size -5");
  EXPECT_ERROR(expand(one, {b * -2, 4}), "negative size");
  EXPECT_ERROR(reshape(x, {b * -2, -1}), "negative size");
  EXPECT_ERROR(reshape(x, {-2, -1}), "negative size");
  EXPECT_ERROR(f.input("n", DType::F32, {b * -1}), "negative size");
  // H+-2 is fine when built, and refused when bound with H < 2.
  Dim h = Dim::sym("H");
  Fusion g("h");
  Tensor y = g.input("y", DType::F32, {h});
  g.output(slice(expand(unsqueeze(y, 0), {h + -2, h}), 0, 0));
  EXPECT_NO_THROW(bind_shapes(g, {{5}}));
  EXPECT_ERROR(bind_shapes(g, {{1}}), "is -1 for H=1");
}

// ---- files: programs, reports and cache entries ---------------------------------------------

TEST(FileBounds, ProgramFilesMustBeRegularAndSmall) {
  EXPECT_ERROR(load_fusion_file("/dev/zero"), "is not a regular file");
  fs::path d = temp_dir("files");
  EXPECT_ERROR(load_fusion_file(d.string()), "(a directory)");
  fs::path fifo = d / "fifo.fusion";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_ERROR(load_fusion_file(fifo.string()), "is not a regular file");  // no block waiting for a writer
  fs::path big = d / "big.fusion";
  std::ofstream(big).put('#');
  fs::resize_file(big, kMaxProgramBytes + 1);
  EXPECT_ERROR(load_fusion_file(big.string()), "over the limit");
  EXPECT_ERROR(load_fusion_file((d / "missing.fusion").string()), "No such file");
  fs::remove_all(d);
}

TEST(FileBounds, ReportsFollowTheSchema) {
  fs::path d = temp_dir("reports");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(d / name) << text;
    return (d / name).string();
  };
  const std::pair<const char*, const char*> bad[] = {
      {"[1,2,3]", "must be an object"},
      {"null", "must be an object"},
      {"{}", "\"records\" must be a list"},
      {"{\"garbage\": 1}", "\"records\" must be a list"},
      {"{\"records\": 5}", "\"records\" must be a list"},
      {"{\"records\": [1]}", "records[0] must be an object"},
      {"{\"records\": [{}]}", "records[0].name must be a non-empty string"},
      {"{\"records\": [{\"name\": 7}]}", "records[0].name"},
      {"{\"records\": [{\"name\": \"a\"}, {\"name\": \"a\"}]}", "appears twice"},
      {"{\"records\": [{\"name\": \"a\", \"time_us\": {\"median\": \"fast\"}}]}", "time_us.median must be a finite"},
      {"{\"records\": [{\"name\": \"a\", \"time_us\": {\"median\": -1}}]}", "must be >= 0"},
      {"{\"records\": [{\"name\": \"a\", \"kernels\": 1.5}]}", "kernels must be an integer"},
      {"{\"records\": [{\"name\": \"a\", \"time_us\": 3}]}", "time_us must be an object"},
      {"{\"device\": 3, \"records\": []}", "report.device must be a string"},
      {"not json", "is not valid JSON"},
  };
  for (const auto& [text, want] : bad) {
    SCOPED_TRACE(text);
    EXPECT_ERROR(bench::load_report_checked(write("r.json", text)), want);
  }
  EXPECT_ERROR(bench::load_report_checked("/dev/zero"), "not a regular file");
  EXPECT_NO_THROW(bench::load_report_checked(write("ok.json", "{\"records\": [{\"name\": \"a\", \"time_us\": {\"median\": 2}}]}")));
  EXPECT_ERROR(bench::compare_reports({}, {}, std::nan("")), "finite");
  fs::remove_all(d);
}

TEST(FileBounds, CompareIsLinear) {
  bench::BenchReport a, b;
  for (int i = 0; i < 100000; ++i) {
    bench::BenchRecord r;
    r.name = "case" + std::to_string(i);
    r.time.median = 10 + i % 7;
    a.records.push_back(r);
    r.name = "case" + std::to_string(99999 - i);
    b.records.push_back(r);
  }
  auto t0 = std::chrono::steady_clock::now();
  auto c = bench::compare_reports(a, b);
  EXPECT_LT(seconds_since(t0), 5.0);  // a scan per case took minutes
  EXPECT_EQ(c.only_a + c.only_b, 0);
  EXPECT_EQ(c.cases.size(), 100000u);
}

TEST(FileBounds, OddCacheEntriesAreRebuiltNeverBlockOrThrow) {
  fs::path d = temp_dir("cache");
  int calls = 0;
  auto build = [&] {
    ++calls;
    CompiledKernel k;
    k.name = "k";
    k.arch = "sm_90a";
    k.cubin.assign(64, 'c');
    return k;
  };
  KernelCache probe(d.string());
  auto make_odd = [&](const std::string& key, int kind) {
    std::string p = probe.entry_path(key);
    if (kind == 0) fs::create_directories(fs::path(p) / "sub");  // a non-empty directory
    if (kind == 1) {
      ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
    }
    if (kind == 2) fs::create_symlink("/dev/zero", p);
    if (kind == 3) fs::create_directory(p);  // an empty directory: removed and replaced
  };
  for (int kind = 0; kind < 4; ++kind) {
    SCOPED_TRACE(kind);
    std::string key = "odd" + std::to_string(kind);
    make_odd(key, kind);
    KernelCache c(d.string());
    auto t0 = std::chrono::steady_clock::now();
    std::shared_ptr<const CompiledKernel> k;
    EXPECT_NO_THROW(k = c.get(key, build));
    EXPECT_LT(seconds_since(t0), 5.0);
    ASSERT_TRUE(k);
    EXPECT_EQ(k->name, "k");
    EXPECT_EQ(c.stats().corrupt_rebuilt, 1);
  }
  EXPECT_EQ(calls, 4);
  // The symlink and the empty directory were replaced by valid entries.
  KernelCache again(d.string());
  int before = calls;
  again.get("odd2", build);
  again.get("odd3", build);
  EXPECT_EQ(calls, before);
  fs::remove_all(d);
}

// ---- building is linear in the program's size -------------------------------------------------

TEST(Linear, TwentyThousandStatementsParseQuickly) {
  std::string text = "fusion big {\n  input x: f32[B, 4]\n";
  std::string prev = "x";
  for (int i = 0; i < 20000; ++i) {
    std::string name = "v" + std::to_string(i);
    text += "  " + name + " = " + (i % 2 ? "neg(" : "abs(") + prev + ")\n";
    prev = name;
  }
  text += "  output " + prev + "\n}\n";
  auto t0 = std::chrono::steady_clock::now();
  Fusion f = parse_fusion(text, "big.fusion");
  verify(f);
  std::string printed = print_fusion(f);
  Fusion g = eliminate_common_subexpressions(f);
  EXPECT_LT(seconds_since(t0), 5.0);  // a name scan per statement and CSE's pairwise scan took 17 s
  EXPECT_EQ(g.nodes().size(), 20000u);
  EXPECT_EQ(f.nodes().size(), 20000u);
  EXPECT_EQ(f.find("v19999"), f.outputs()[0]);
}
