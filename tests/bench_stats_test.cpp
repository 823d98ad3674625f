#include <gtest/gtest.h>

#include "bench/stats.h"
#include "solder/error.h"

using namespace solder::bench;

TEST(BenchStats, MedianAndPercentilesInterpolate) {
  Summary s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);  // position 0.4 between 1 and 2
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.spread, (4.6 - 1.4) / 3);
}

TEST(BenchStats, EvenCountMedianAveragesMiddle) {
  Summary s = summarize({10, 20, 30, 40});
  EXPECT_DOUBLE_EQ(s.median, 25);
  Summary one = summarize({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.spread, 0);
}

TEST(BenchStats, EmptyThrows) { EXPECT_THROW(summarize({}), solder::Error); }

TEST(BenchStats, StopsWhenConvergedAfterMinReps) {
  RepetitionPolicy p{.min_reps = 5, .max_reps = 100, .target_spread = 0.05, .budget_ms = 1e9};
  int calls = 0;
  Summary s = run_adaptive([&] { return 10.0 + (++calls % 2) * 0.01; }, p);
  EXPECT_EQ(s.n, 5u);
  EXPECT_EQ(s.stop, StopReason::converged);
}

TEST(BenchStats, NoisySamplesRunToMaxReps) {
  RepetitionPolicy p{.min_reps = 5, .max_reps = 40, .target_spread = 0.01, .budget_ms = 1e9};
  int calls = 0;
  Summary s = run_adaptive([&] { return (++calls % 2) ? 10.0 : 20.0; }, p);
  EXPECT_EQ(s.n, 40u);
  EXPECT_EQ(s.stop, StopReason::max_reps);
  EXPECT_GT(s.spread, 0.5);
}

TEST(BenchStats, BudgetStopsButKeepsAFewSamples) {
  RepetitionPolicy p{.min_reps = 10, .max_reps = 1000, .target_spread = 0.0, .budget_ms = 0};
  int calls = 0;
  Summary s = run_adaptive([&] { return (++calls % 2) ? 1.0 : 3.0; }, p);
  EXPECT_EQ(s.n, kMinSamplesOnBudget);
  EXPECT_EQ(s.stop, StopReason::budget);
}

TEST(BenchStats, ShouldStopRuleDirectly) {
  RepetitionPolicy p{.min_reps = 3, .max_reps = 10, .target_spread = 0.1, .budget_ms = 100};
  StopReason why = StopReason::fixed;
  EXPECT_FALSE(should_stop(p, {1, 1}, 0, &why));  // below min_reps
  EXPECT_TRUE(should_stop(p, {1, 1, 1}, 0, &why));
  EXPECT_EQ(why, StopReason::converged);
  EXPECT_FALSE(should_stop(p, {1, 2, 3}, 50, &why));
  EXPECT_TRUE(should_stop(p, {1, 2, 3}, 150, &why));
  EXPECT_EQ(why, StopReason::budget);
}

TEST(BenchStats, StopReasonNamesRoundTrip) {
  for (auto r : {StopReason::converged, StopReason::budget, StopReason::max_reps, StopReason::fixed})
    EXPECT_EQ(parse_stop_reason(stop_reason_name(r)), r);
}

TEST(BenchStats, DriftFlagsFivePercent) {
  EXPECT_FALSE(judge_drift(1000, 1030).significant);
  Drift d = judge_drift(1000, 900, 0.05, " GB/s");
  EXPECT_TRUE(d.significant);
  EXPECT_NEAR(d.relative, -0.1, 1e-12);
  EXPECT_NE(d.note.find("-10.0%"), std::string::npos);
  EXPECT_NE(d.note.find("GB/s"), std::string::npos);
}
