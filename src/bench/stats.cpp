#include "bench/stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "solder/error.h"

namespace solder::bench {

const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::converged: return "converged";
    case StopReason::budget: return "budget";
    case StopReason::max_reps: return "max_reps";
    case StopReason::fixed: return "fixed";
  }
  return "fixed";
}

StopReason parse_stop_reason(const std::string& s) {
  if (s == "converged") return StopReason::converged;
  if (s == "budget") return StopReason::budget;
  if (s == "max_reps") return StopReason::max_reps;
  return StopReason::fixed;
}

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw Error("percentile: no samples");
  q = std::clamp(q, 0.0, 1.0);
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Summary summarize(std::vector<double> samples) {
  if (samples.empty()) throw Error("summarize: no samples");
  std::sort(samples.begin(), samples.end());
  Summary s;
  s.n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  s.median = percentile(samples, 0.5);
  s.p10 = percentile(samples, 0.1);
  s.p90 = percentile(samples, 0.9);
  // A zero median (an empty timed region) has no meaningful relative spread.
  s.spread = s.median > 0 ? (s.p90 - s.p10) / s.median : 0.0;
  return s;
}

bool should_stop(const RepetitionPolicy& p, const std::vector<double>& samples, double elapsed_ms,
                 StopReason* why) {
  auto stop = [&](StopReason r) {
    if (why) *why = r;
    return true;
  };
  size_t n = samples.size();
  if (n >= std::max<size_t>(p.min_reps, 1) && summarize(samples).spread <= p.target_spread)
    return stop(StopReason::converged);
  if (n >= p.max_reps) return stop(StopReason::max_reps);
  if (elapsed_ms >= p.budget_ms && n >= std::min(kMinSamplesOnBudget, std::max<size_t>(p.min_reps, 1)))
    return stop(StopReason::budget);
  return false;
}

Summary run_adaptive(const std::function<double()>& one_sample, const RepetitionPolicy& p) {
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  std::vector<double> samples;
  StopReason why = StopReason::fixed;
  for (;;) {
    samples.push_back(one_sample());
    double elapsed = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    if (should_stop(p, samples, elapsed, &why)) break;
  }
  Summary s = summarize(std::move(samples));
  s.stop = why;
  return s;
}

Drift judge_drift(double before, double after, double tolerance, const std::string& unit) {
  Drift d;
  d.before = before;
  d.after = after;
  d.relative = before > 0 ? (after - before) / before : 0.0;
  d.significant = std::abs(d.relative) > tolerance;
  if (d.significant) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "reference copy changed by %+.1f%% between start (%.1f%s) and end (%.1f%s) of the run: "
                  "clocks throttled or the GPU was shared; treat the numbers with care",
                  100.0 * d.relative, before, unit.c_str(), after, unit.c_str());
    d.note = buf;
  }
  return d;
}

}  // namespace solder::bench
