#include "bench/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "bench/text_table.h"
#include "ir/limits.h"
#include "solder/error.h"

namespace solder::bench {

using nlohmann::json;

namespace {
constexpr int64_t kMaxReportBytes = int64_t{1} << 30;

[[noreturn]] void schema_error(const std::string& what, const std::string& where, const std::string& why) {
  throw Error(what + " is not a benchmark report: " + where + " " + why);
}

// Each known field's type; absent or null fields are allowed (older reports lack some).
enum class Kind { String, Number, Count, Object, Array };
void check_fields(const json& obj, const std::string& what, const std::string& where,
                  std::initializer_list<std::pair<const char*, Kind>> fields) {
  for (const auto& [key, kind] : fields) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) continue;
    const std::string at = where + "." + key;
    switch (kind) {
      case Kind::String:
        if (!it->is_string()) schema_error(what, at, "must be a string");
        break;
      case Kind::Number:
        if (!it->is_number() || !std::isfinite(it->get<double>())) schema_error(what, at, "must be a finite number");
        break;
      case Kind::Count:
        if (!it->is_number_integer() || it->get<int64_t>() < 0) schema_error(what, at, "must be an integer >= 0");
        break;
      case Kind::Object:
        if (!it->is_object()) schema_error(what, at, "must be an object");
        break;
      case Kind::Array:
        if (!it->is_array()) schema_error(what, at, "must be a list");
        break;
    }
  }
}
}  // namespace

void validate_report_json(const json& j, const std::string& what) {
  if (!j.is_object()) schema_error(what, "the top level", "must be an object with \"records\", got " + std::string(j.type_name()));
  if (!j.contains("records") || !j["records"].is_array()) schema_error(what, "\"records\"", "must be a list");
  check_fields(j, what, "report",
               {{"device", Kind::String}, {"date", Kind::String}, {"ceiling_gbs", Kind::Number},
                {"throttle_note", Kind::String}, {"peers_note", Kind::String}});
  std::unordered_set<std::string> names;
  const auto& records = j["records"];
  for (size_t i = 0; i < records.size(); ++i) {
    const json& r = records[i];
    const std::string where = "records[" + std::to_string(i) + "]";
    if (!r.is_object()) schema_error(what, where, "must be an object");
    if (!r.contains("name") || !r["name"].is_string() || r["name"].get<std::string>().empty())
      schema_error(what, where + ".name", "must be a non-empty string");
    if (!names.insert(r["name"].get<std::string>()).second)
      schema_error(what, where + ".name", "'" + r["name"].get<std::string>() + "' appears twice");
    check_fields(r, what, where,
                 {{"suite", Kind::String}, {"shape", Kind::String}, {"dtype", Kind::String}, {"note", Kind::String},
                  {"bytes", Kind::Count}, {"gbs", Kind::Number}, {"copy_gbs", Kind::Number},
                  {"pct_of_copy", Kind::Number}, {"pct_of_peak", Kind::Number}, {"host_us", Kind::Number},
                  {"graph_host_us", Kind::Number}, {"raw_launch_us", Kind::Number}, {"compile_ms", Kind::Number},
                  {"recompiles", Kind::Count}, {"kernels", Kind::Count}, {"eager_us", Kind::Number},
                  {"compile_us", Kind::Number}, {"time_us", Kind::Object}, {"kernel_resources", Kind::Array}});
    if (auto t = r.find("time_us"); t != r.end() && t->is_object()) {
      check_fields(*t, what, where + ".time_us",
                   {{"median", Kind::Number}, {"min", Kind::Number}, {"max", Kind::Number}, {"mean", Kind::Number},
                    {"p10", Kind::Number}, {"p90", Kind::Number}, {"spread", Kind::Number}, {"n", Kind::Count},
                    {"stop", Kind::String}});
      for (const char* key : {"median", "spread"})
        if (t->contains(key) && (*t)[key].is_number() && (*t)[key].get<double>() < 0)
          schema_error(what, where + ".time_us." + key, "must be >= 0");
    }
    if (auto k = r.find("kernel_resources"); k != r.end() && k->is_array())
      for (size_t n = 0; n < k->size(); ++n) {
        const std::string kw = where + ".kernel_resources[" + std::to_string(n) + "]";
        if (!(*k)[n].is_object()) schema_error(what, kw, "must be an object");
        check_fields((*k)[n], what, kw,
                     {{"name", Kind::String}, {"registers", Kind::Number}, {"spill_bytes", Kind::Number},
                      {"params", Kind::String}});
      }
  }
}

BenchReport load_report_checked(const std::string& path) {
  const std::string what = "report '" + path + "'";
  std::string text = read_bounded_file(path, kMaxReportBytes, "benchmark report");
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(what + " is not valid JSON: " + e.what());
  }
  validate_report_json(j, what);
  try {
    return j.get<BenchReport>();
  } catch (const json::exception& e) {
    throw Error(what + " is not a benchmark report: " + e.what());
  }
}

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
  if (!std::isfinite(floor) || floor < 0) throw Error("compare: the threshold must be a finite number >= 0");
  // One index per report: a scan per case made two 100k-case reports take minutes.
  auto index = [](const BenchReport& r) {
    std::unordered_map<std::string, const BenchRecord*> m;
    m.reserve(r.records.size());
    for (const auto& rec : r.records) m.emplace(rec.name, &rec);  // the first of a name wins, as find() did
    return m;
  };
  const auto in_a = index(a), in_b = index(b);
  auto lookup = [](const auto& m, const std::string& name) -> const BenchRecord* {
    auto it = m.find(name);
    return it == m.end() ? nullptr : it->second;
  };
  Comparison out;
  double log_sum = 0;
  int logged = 0;
  for (const auto& ra : a.records) {
    CaseComparison c;
    c.name = ra.name;
    const BenchRecord* rb = lookup(in_b, ra.name);
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
    if (lookup(in_a, rb.name)) continue;
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
