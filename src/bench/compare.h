#pragma once
// Compares two benchmark reports case by case (matched by name) and says which cases got
// faster or slower by more than the measured noise. A difference only counts when
// |Δmedian| / median(A) exceeds both the larger relative spread of the two measurements and
// a floor (2% by default): a change inside the noise is "same", however tempting.
#include <string>
#include <vector>

#include "bench/record.h"

namespace solder::bench {

enum class Verdict { faster, slower, same, only_a, only_b };
const char* verdict_name(Verdict v);

struct CaseComparison {
  std::string name;
  double a_us = 0, b_us = 0;  // medians
  double ratio = 0;           // b / a: below 1 means B is faster
  double delta = 0;           // (b - a) / a
  double threshold = 0;       // the relative change needed to count: max(noise, floor)
  bool noisy = false;         // the noise, not the floor, set the threshold
  Verdict verdict = Verdict::same;
};

struct Comparison {
  std::vector<CaseComparison> cases;  // A's order, then cases only in B
  int faster = 0, slower = 0, same = 0, only_a = 0, only_b = 0;
  double geomean_ratio = 1;  // over matched cases with times
};

// Reads a report for comparison: a regular JSON file that follows the report schema (an object
// with a "records" array of objects, each with a string "name" unique in the report, and known
// fields of their types, times finite and >= 0). Throws solder::Error naming the file and the
// first field that breaks the schema: a list, null or a stray object is not an empty report.
BenchReport load_report_checked(const std::string& path);
// The same check on parsed JSON; `what` names it in messages.
void validate_report_json(const nlohmann::json& j, const std::string& what);

Verdict classify(double a_median, double a_spread, double b_median, double b_spread, double floor,
                 CaseComparison* detail = nullptr);
// Linear in the number of cases. `floor` must be finite and >= 0.
Comparison compare_reports(const BenchReport& a, const BenchReport& b, double floor = 0.02);
// The table (case, A µs, B µs, B/A, Δ%, needed %, verdict) and a summary line of counts.
std::string format_comparison(const Comparison& c);

}  // namespace solder::bench
