// Reductions in the reference executor: axes/keepdim, NaN propagation, integer sums, empty
// reductions, var_mean corrections, and accumulation in double with one final rounding.
#include <gtest/gtest.h>

#include <limits>

#include "reference_test_util.h"
#include "solder/error.h"

using namespace solder;
using namespace solder::test;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> iota(int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}
}  // namespace

TEST(ReferenceReduce, SumAxesAndKeepdim) {
  Fusion f("s");
  Tensor x = f.input("x", DType::F32, {2, 3});
  f.output(sum(x));
  f.output(sum(x, {1}));
  f.output(sum(x, {0}, true));
  f.output(sum(x, {-1}, true));
  auto out = run_reference(f, {tensor(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  expect_tensor(out[0], DType::F32, {}, {21});
  expect_tensor(out[1], DType::F32, {2}, {6, 15});
  expect_tensor(out[2], DType::F32, {1, 3}, {5, 7, 9});
  expect_tensor(out[3], DType::F32, {2, 1}, {6, 15});
}

TEST(ReferenceReduce, OddAndInnerAxes) {
  Fusion f("o");
  Tensor x = f.input("x", DType::F64, {3, 5});
  Tensor y = f.input("y", DType::F64, {2, 3, 2});
  f.output(sum(x, {0}));
  f.output(sum(x, {0, 1}));
  f.output(sum(y, {1}));
  f.output(sum(y, {1}, true));
  f.output(sum(y, {0, 2}));
  auto out = run_reference(f, {tensor(DType::F64, {3, 5}, iota(15)), tensor(DType::F64, {2, 3, 2}, iota(12))});
  expect_tensor(out[0], DType::F64, {5}, {15, 18, 21, 24, 27});
  expect_tensor(out[1], DType::F64, {}, {105});
  expect_tensor(out[2], DType::F64, {2, 2}, {6, 9, 24, 27});  // 18i + 6 + 3k
  expect_tensor(out[3], DType::F64, {2, 1, 2}, {6, 9, 24, 27});
  expect_tensor(out[4], DType::F64, {3}, {14, 22, 30});       // 14 + 8j
}

TEST(ReferenceReduce, MaxMinPropagateNaN) {
  Fusion f("m");
  Tensor x = f.input("x", DType::F32, {2, 3});
  f.output(max(x, {1}));
  f.output(min(x, {1}));
  f.output(max(x, {0}, true));
  f.output(min(x));
  auto out = run_reference(f, {tensor(DType::F32, {2, 3}, {1, kNaN, 3, -4, 5, 6})});
  expect_tensor(out[0], DType::F32, {2}, {kNaN, 6});
  expect_tensor(out[1], DType::F32, {2}, {kNaN, -4});
  expect_tensor(out[2], DType::F32, {1, 3}, {1, kNaN, 6});
  expect_tensor(out[3], DType::F32, {}, {kNaN});
}

TEST(ReferenceReduce, IntegerSumsWidenToI64) {
  Fusion f("i");
  Tensor x = f.input("x", DType::I32, {3});
  Tensor b = f.input("b", DType::Bool, {4});
  f.output(sum(x));
  f.output(sum(b));
  f.output(max(x));
  auto out = run_reference(f, {tensor(DType::I32, {3}, {2147483647, 2, -3}), tensor(DType::Bool, {4}, {1, 0, 1, 1})});
  expect_tensor(out[0], DType::I64, {}, {2147483646});  // no i32 overflow on the way
  expect_tensor(out[1], DType::I64, {}, {3});
  expect_tensor(out[2], DType::I32, {}, {2147483647});
}

TEST(ReferenceReduce, MeanAndVarMean) {
  Fusion f("v");
  Tensor x = f.input("x", DType::F64, {2, 3});
  f.output(mean(x, {1}));
  f.output(mean(x));
  auto vm1 = var_mean(x, {1}, 1);
  auto vm0 = var_mean(x, {1}, 0, true);
  f.output(vm1.var);
  f.output(vm1.mean);
  f.output(vm0.var);
  f.output(vm0.mean);
  f.output(var(x, {0, 1}, 1));
  auto out = run_reference(f, {tensor(DType::F64, {2, 3}, {1, 2, 3, 4, 5, 9})});
  expect_tensor(out[0], DType::F64, {2}, {2, 6});
  expect_tensor(out[1], DType::F64, {}, {4});
  expect_tensor(out[2], DType::F64, {2}, {1, 7});  // {4,5,9}: squares 4+1+9 = 14, /2
  expect_tensor(out[3], DType::F64, {2}, {2, 6});
  expect_tensor(out[4], DType::F64, {2, 1}, {2.0 / 3, 14.0 / 3}, 1e-15);
  expect_tensor(out[5], DType::F64, {2, 1}, {2, 6});
  expect_tensor(out[6], DType::F64, {}, {8});  // mean 4; squares 9+4+1+0+1+25 = 40, /5
}

TEST(ReferenceReduce, AccumulatesInDoubleRoundsOnce) {
  Fusion f("a");
  Tensor x = f.input("x", DType::F16, {3});
  f.output(sum(x));
  f.output(mean(x));
  // 2048 + 1 + 1 = 2050 is an f16 value; adding in f16 step by step would stick at 2048.
  auto out = run_reference(f, {tensor(DType::F16, {3}, {2048, 1, 1})});
  expect_tensor(out[0], DType::F16, {}, {2050});
  expect_tensor(out[1], DType::F16, {}, {683.5});  // 683.333.. rounds to the f16 grid (0.5 apart)
}

TEST(ReferenceReduce, EmptyReductions) {
  Fusion f("e");
  Tensor x = f.input("x", DType::F32, {Dim::sym("N")});
  f.output(sum(x));
  f.output(mean(x));
  f.output(var(x, {0}, 1));
  auto out = run_reference(f, {tensor(DType::F32, {0}, {})});
  expect_tensor(out[0], DType::F32, {}, {0});
  expect_tensor(out[1], DType::F32, {}, {kNaN});
  expect_tensor(out[2], DType::F32, {}, {kNaN});
  for (bool is_max : {true, false}) {
    Fusion g("g");
    Tensor y = g.input("y", DType::F32, {Dim::sym("N"), 2});
    g.output(is_max ? max(y, {0}) : min(y, {0}));
    try {
      run_reference(g, {tensor(DType::F32, {0, 2}, {})});
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(is_max ? "max" : "min"), std::string::npos) << e.what();
    }
  }
}

TEST(ReferenceReduce, VarianceOfOneElementWithCorrection) {
  Fusion f("v");
  Tensor x = f.input("x", DType::F32, {1});
  f.output(var(x, {0}, 1));
  f.output(var(x, {0}, 0));
  auto out = run_reference(f, {tensor(DType::F32, {1}, {5})});
  expect_tensor(out[0], DType::F32, {}, {kNaN});  // 0 / 0
  expect_tensor(out[1], DType::F32, {}, {0});
}

TEST(ReferenceReduce, RankZeroOperand) {
  Fusion f("z");
  Tensor x = f.input("x", DType::F32, {});
  f.output(sum(x));
  f.output(max(x));
  auto out = run_reference(f, {tensor(DType::F32, {}, {3})});
  expect_tensor(out[0], DType::F32, {}, {3});
  expect_tensor(out[1], DType::F32, {}, {3});
}
