#include <gtest/gtest.h>

#include "bench/compare.h"

using namespace solder::bench;

namespace {

BenchRecord rec(const std::string& name, double median, double spread) {
  BenchRecord r;
  r.name = name;
  r.time.median = median;
  r.time.spread = spread;
  r.time.n = 20;
  return r;
}

}  // namespace

TEST(BenchCompare, ClearChangesAreFasterOrSlower) {
  EXPECT_EQ(classify(100, 0.01, 80, 0.01, 0.02), Verdict::faster);
  EXPECT_EQ(classify(100, 0.01, 120, 0.01, 0.02), Verdict::slower);
}

TEST(BenchCompare, FloorHoldsSmallChanges) {
  EXPECT_EQ(classify(100, 0.0, 101.5, 0.0, 0.02), Verdict::same);
  EXPECT_EQ(classify(100, 0.0, 97.0, 0.0, 0.02), Verdict::faster);
  EXPECT_EQ(classify(100, 0.0, 97.0, 0.0, 0.05), Verdict::same);  // a larger --threshold
}

TEST(BenchCompare, NoiseRaisesTheBar) {
  CaseComparison d;
  // 10% faster, but one run's p10..p90 spans 15% of its median: not believable.
  EXPECT_EQ(classify(100, 0.15, 90, 0.01, 0.02, &d), Verdict::same);
  EXPECT_TRUE(d.noisy);
  EXPECT_DOUBLE_EQ(d.threshold, 0.15);
  // The same noise in either run counts.
  EXPECT_EQ(classify(100, 0.01, 90, 0.15, 0.02), Verdict::same);
  // A change well beyond the noise still counts.
  EXPECT_EQ(classify(100, 0.15, 50, 0.15, 0.02, &d), Verdict::faster);
  EXPECT_DOUBLE_EQ(d.ratio, 0.5);
}

TEST(BenchCompare, UnmeasuredIsSame) { EXPECT_EQ(classify(0, 0, 10, 0, 0.02), Verdict::same); }

TEST(BenchCompare, ReportsMatchByNameAndCount) {
  BenchReport a, b;
  a.records = {rec("x", 100, 0.01), rec("y", 100, 0.01), rec("z", 100, 0.01), rec("gone", 5, 0)};
  b.records = {rec("z", 100.5, 0.01), rec("y", 130, 0.01), rec("x", 70, 0.01), rec("new", 5, 0)};
  Comparison c = compare_reports(a, b);
  EXPECT_EQ(c.faster, 1);
  EXPECT_EQ(c.slower, 1);
  EXPECT_EQ(c.same, 1);
  EXPECT_EQ(c.only_a, 1);
  EXPECT_EQ(c.only_b, 1);
  ASSERT_EQ(c.cases.size(), 5u);
  EXPECT_EQ(c.cases[0].name, "x");
  EXPECT_EQ(c.cases[0].verdict, Verdict::faster);
  EXPECT_EQ(c.cases[4].verdict, Verdict::only_b);
  EXPECT_NEAR(c.geomean_ratio, std::cbrt(0.7 * 1.3 * 1.005), 1e-12);
  std::string text = format_comparison(c);
  EXPECT_NE(text.find("1 faster, 1 slower, 1 same, 1 only in A, 1 only in B"), std::string::npos);
  EXPECT_NE(text.find("+30.0"), std::string::npos);
}
