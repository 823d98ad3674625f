#include "bench/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bench/text_table.h"

namespace solder::bench {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::same: return "same";
    case Verdict::only_a: return "only in A";
    case Verdict::only_b: return "only in B";
  }
  return "same";
}

Verdict classify(double a_median, double a_spread, double b_median, double b_spread, double floor,
                 CaseComparison* detail) {
  CaseComparison local;
  CaseComparison& d = detail ? *detail : local;
  d.a_us = a_median;
  d.b_us = b_median;
  double noise = std::max(a_spread, b_spread);
  d.threshold = std::max(noise, floor);
  d.noisy = noise > floor;
  if (a_median <= 0 || b_median <= 0) {  // nothing measured: no claim either way
    d.ratio = 1;
    d.delta = 0;
    return d.verdict = Verdict::same;
  }
  d.ratio = b_median / a_median;
  d.delta = d.ratio - 1;
  if (std::abs(d.delta) <= d.threshold) return d.verdict = Verdict::same;
  return d.verdict = d.delta < 0 ? Verdict::faster : Verdict::slower;
}

Comparison compare_reports(const BenchReport& a, const BenchReport& b, double floor) {
  Comparison out;
  double log_sum = 0;
  int logged = 0;
  for (const auto& ra : a.records) {
    CaseComparison c;
    c.name = ra.name;
    const BenchRecord* rb = b.find(ra.name);
    if (!rb) {
      c.a_us = ra.time.median;
      c.verdict = Verdict::only_a;
      ++out.only_a;
    } else {
      classify(ra.time.median, ra.time.spread, rb->time.median, rb->time.spread, floor, &c);
      if (c.verdict == Verdict::faster) ++out.faster;
      if (c.verdict == Verdict::slower) ++out.slower;
      if (c.verdict == Verdict::same) ++out.same;
      if (c.a_us > 0 && c.b_us > 0) {
        log_sum += std::log(c.ratio);
        ++logged;
      }
    }
    out.cases.push_back(c);
  }
  for (const auto& rb : b.records) {
    if (a.find(rb.name)) continue;
    CaseComparison c;
    c.name = rb.name;
    c.b_us = rb.time.median;
    c.verdict = Verdict::only_b;
    ++out.only_b;
    out.cases.push_back(c);
  }
  out.geomean_ratio = logged ? std::exp(log_sum / logged) : 1.0;
  return out;
}

std::string format_comparison(const Comparison& c) {
  TextTable t({"case", "A µs", "B µs", "B/A", "Δ%", "needed %", "verdict"});
  for (const auto& k : c.cases) {
    bool matched = k.verdict != Verdict::only_a && k.verdict != Verdict::only_b;
    std::string verdict = verdict_name(k.verdict);
    if (matched && k.noisy) verdict += " (noisy)";
    t.add_row({k.name, k.verdict == Verdict::only_b ? "-" : cell(k.a_us, 2),
               k.verdict == Verdict::only_a ? "-" : cell(k.b_us, 2), matched ? cell(k.ratio, 3) : "-",
               matched ? fmt::format("{:+.1f}", 100 * k.delta) : "-", matched ? cell(100 * k.threshold, 1) : "-",
               verdict});
  }
  std::string out = t.terminal();
  out += fmt::format("\n{} faster, {} slower, {} same", c.faster, c.slower, c.same);
  if (c.only_a) out += fmt::format(", {} only in A", c.only_a);
  if (c.only_b) out += fmt::format(", {} only in B", c.only_b);
  out += fmt::format("; geometric mean B/A = {:.3f}\n", c.geomean_ratio);
  out += "A change counts only beyond max(floor, larger (p90-p10)/median of the two runs).\n";
  return out;
}

}  // namespace solder::bench
