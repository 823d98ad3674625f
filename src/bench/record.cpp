#include "bench/record.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>

#include "solder/error.h"

namespace solder::bench {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// Reports from older runs or other tools may lack a field: read it as absent, not as an error.
std::optional<double> get_opt(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

template <class T>
T get_or(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<T>();
}

}  // namespace

std::optional<double> BenchRecord::vs_eager() const {
  if (!eager_us || time.median <= 0) return std::nullopt;
  return *eager_us / time.median;
}

std::optional<double> BenchRecord::vs_compile() const {
  if (!compile_us || time.median <= 0) return std::nullopt;
  return *compile_us / time.median;
}

int BenchRecord::max_registers() const {
  int m = -1;
  for (const auto& k : kernel_resources) m = std::max(m, k.registers);
  return m;
}

int BenchRecord::total_spill_bytes() const {
  int s = 0;
  for (const auto& k : kernel_resources) s += k.spill_bytes;
  return s;
}

void derive_bandwidth(BenchRecord& r, double ceiling_gbs) {
  r.gbs = r.time.median > 0 ? static_cast<double>(r.bytes) / (r.time.median * 1e3) : 0.0;
  r.pct_of_copy = r.copy_gbs > 0 ? 100.0 * r.gbs / r.copy_gbs : 0.0;
  r.pct_of_peak = ceiling_gbs > 0 ? 100.0 * r.gbs / ceiling_gbs : 0.0;
}

const BenchRecord* BenchReport::find(const std::string& name) const {
  for (const auto& r : records)
    if (r.name == name) return &r;
  return nullptr;
}

std::string utc_now_iso8601() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void to_json(json& j, const Summary& s) {
  j = json{{"median", s.median}, {"min", s.min},   {"max", s.max},       {"mean", s.mean},
           {"p10", s.p10},       {"p90", s.p90},   {"spread", s.spread}, {"n", s.n},
           {"stop", stop_reason_name(s.stop)}};
}

void from_json(const json& j, Summary& s) {
  s.median = get_or(j, "median", 0.0);
  s.min = get_or(j, "min", 0.0);
  s.max = get_or(j, "max", 0.0);
  s.mean = get_or(j, "mean", 0.0);
  s.p10 = get_or(j, "p10", 0.0);
  s.p90 = get_or(j, "p90", 0.0);
  s.spread = get_or(j, "spread", 0.0);
  s.n = get_or<size_t>(j, "n", 0);
  s.stop = parse_stop_reason(get_or<std::string>(j, "stop", "fixed"));
}

void to_json(json& j, const KernelResources& k) {
  j = json{{"name", k.name}, {"registers", k.registers}, {"spill_bytes", k.spill_bytes}, {"params", k.params}};
}

void from_json(const json& j, KernelResources& k) {
  k.name = get_or<std::string>(j, "name", "");
  k.registers = get_or(j, "registers", -1);
  k.spill_bytes = get_or(j, "spill_bytes", 0);
  k.params = get_or<std::string>(j, "params", "");
}

void to_json(json& j, const BenchRecord& r) {
  j = json{{"suite", r.suite},
           {"name", r.name},
           {"shape", r.shape},
           {"dtype", r.dtype},
           {"bytes", r.bytes},
           {"time_us", r.time},
           {"gbs", r.gbs},
           {"copy_gbs", r.copy_gbs},
           {"pct_of_copy", r.pct_of_copy},
           {"pct_of_peak", r.pct_of_peak},
           {"host_us", opt(r.host_us)},
           {"graph_host_us", opt(r.graph_host_us)},
           {"raw_launch_us", opt(r.raw_launch_us)},
           {"compile_ms", opt(r.compile_ms)},
           {"recompiles", r.recompiles},
           {"kernels", r.kernels},
           {"kernel_resources", r.kernel_resources},
           {"eager_us", opt(r.eager_us)},
           {"compile_us", opt(r.compile_us)},
           {"vs_eager", opt(r.vs_eager())},
           {"vs_compile", opt(r.vs_compile())},
           {"note", r.note}};
}

void from_json(const json& j, BenchRecord& r) {
  r.suite = get_or<std::string>(j, "suite", "");
  r.name = j.at("name").get<std::string>();
  r.shape = get_or<std::string>(j, "shape", "");
  r.dtype = get_or<std::string>(j, "dtype", "");
  r.bytes = get_or<uint64_t>(j, "bytes", 0);
  if (j.contains("time_us")) r.time = j.at("time_us").get<Summary>();
  r.gbs = get_or(j, "gbs", 0.0);
  r.copy_gbs = get_or(j, "copy_gbs", 0.0);
  r.pct_of_copy = get_or(j, "pct_of_copy", 0.0);
  r.pct_of_peak = get_or(j, "pct_of_peak", 0.0);
  r.host_us = get_opt(j, "host_us");
  r.graph_host_us = get_opt(j, "graph_host_us");
  r.raw_launch_us = get_opt(j, "raw_launch_us");
  r.compile_ms = get_opt(j, "compile_ms");
  r.recompiles = get_or(j, "recompiles", 0);
  r.kernels = get_or(j, "kernels", 0);
  r.kernel_resources = get_or(j, "kernel_resources", std::vector<KernelResources>{});
  r.eager_us = get_opt(j, "eager_us");
  r.compile_us = get_opt(j, "compile_us");
  r.note = get_or<std::string>(j, "note", "");
  // vs_eager / vs_compile are derived; they are written for readers of the file only.
}

void to_json(json& j, const BenchReport& r) {
  j = json{{"device", r.device},
           {"date", r.date},
           {"ceiling_gbs", r.ceiling_gbs},
           {"throttle_note", r.throttle_note},
           {"peers_note", r.peers_note},
           {"records", r.records}};
}

void from_json(const json& j, BenchReport& r) {
  r.device = get_or<std::string>(j, "device", "");
  r.date = get_or<std::string>(j, "date", "");
  r.ceiling_gbs = get_or(j, "ceiling_gbs", 0.0);
  r.throttle_note = get_or<std::string>(j, "throttle_note", "");
  r.peers_note = get_or<std::string>(j, "peers_note", "");
  r.records = get_or(j, "records", std::vector<BenchRecord>{});
}

BenchReport load_report(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open benchmark report '" + path + "'");
  try {
    return json::parse(in).get<BenchReport>();
  } catch (const json::exception& e) {
    throw Error("benchmark report '" + path + "' is not a valid report: " + e.what());
  }
}

void save_report(const std::string& path, const BenchReport& r) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write benchmark report '" + path + "'");
  out << json(r).dump(1) << "\n";
  if (!out) throw Error("failed writing benchmark report '" + path + "'");
}

int apply_peer_times(BenchReport& r, const json& peers) {
  if (!peers.is_object()) return 0;
  int applied = 0;
  for (auto& rec : r.records) {
    auto it = peers.find(rec.name);
    if (it == peers.end() || !it->is_object()) continue;
    auto e = get_opt(*it, "eager_us");
    auto c = get_opt(*it, "compile_us");
    if (e) rec.eager_us = e;
    if (c) rec.compile_us = c;
    if (e || c) ++applied;
  }
  return applied;
}

}  // namespace solder::bench
