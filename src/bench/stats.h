#pragma once
// Summaries of timing samples and the adaptive repetition policy that decides how many samples
// are enough. Pure CPU code: the GPU timer feeds it, tests drive it with synthetic samples.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace solder::bench {

// Why a sampling loop stopped; reported so a reader can tell a converged number from one that
// ran out of time (seed 000: a number is only as good as the story of how it was taken).
enum class StopReason { converged, budget, max_reps, fixed };

const char* stop_reason_name(StopReason r);
StopReason parse_stop_reason(const std::string& s);  // unknown -> fixed

// Order statistics of one set of samples, in the samples' unit (µs everywhere in src/bench).
struct Summary {
  double median = 0, min = 0, max = 0, mean = 0;
  double p10 = 0, p90 = 0;
  double spread = 0;  // (p90 - p10) / median: the noise measure compare.cpp trusts
  size_t n = 0;
  StopReason stop = StopReason::fixed;
};

// Linear interpolation between closest ranks (numpy's default); `sorted` must be ascending.
double percentile(const std::vector<double>& sorted, double q);
// Throws solder::Error on an empty sample set.
Summary summarize(std::vector<double> samples);

struct RepetitionPolicy {
  size_t min_reps = 10;
  size_t max_reps = 1000;
  double target_spread = 0.03;  // stop once (p90-p10)/median is at most this
  double budget_ms = 2000;      // wall-clock budget for the timed repetitions
};

// Below this many samples a budget stop is refused: one sample has no spread to report.
constexpr size_t kMinSamplesOnBudget = 3;

// The stopping rule alone, so tests can check it without a clock: run until n >= min_reps and
// spread <= target, or the budget is spent, or max_reps is reached. Returns true to stop and
// says why through `why`.
bool should_stop(const RepetitionPolicy& p, const std::vector<double>& samples, double elapsed_ms,
                 StopReason* why);

// Calls `one_sample` until should_stop says so, timing the loop with a steady clock.
Summary run_adaptive(const std::function<double()>& one_sample, const RepetitionPolicy& p);

// Relative drift of a fixed reference measurement taken at the start and end of a run
// (clock throttling, a co-tenant): (after - before) / before.
struct Drift {
  double before = 0, after = 0;
  double relative = 0;
  bool significant = false;  // |relative| > tolerance
  std::string note;          // "" when not significant, else a sentence for the report
};
Drift judge_drift(double before, double after, double tolerance = 0.05, const std::string& unit = "");

}  // namespace solder::bench
