#include "bench/report_format.h"

#include <fmt/format.h>

#include <functional>

#include "bench/text_table.h"

namespace solder::bench {
namespace {

std::string num(double v) { return fmt::format("{}", v); }
std::string num(const std::optional<double>& v) { return v ? num(*v) : ""; }

// One column of the human-readable tables; `shown` drops columns no record fills.
struct Column {
  std::string header;
  std::function<std::string(const BenchRecord&)> value;
  std::function<bool(const BenchRecord&)> filled = [](const BenchRecord&) { return true; };
};

std::vector<Column> columns(bool compact) {
  std::vector<Column> c;
  c.push_back({"case", [](const BenchRecord& r) { return r.name; }});
  c.push_back({"shape", [](const BenchRecord& r) { return r.shape; }});
  c.push_back({"dtype", [](const BenchRecord& r) { return r.dtype; }});
  if (!compact) c.push_back({"MB", [](const BenchRecord& r) { return cell(r.bytes / 1e6, 1); }});
  c.push_back({"µs", [](const BenchRecord& r) { return cell(r.time.median, 1); }});
  c.push_back({"±%", [](const BenchRecord& r) { return cell(100 * r.time.spread, 1); }});
  c.push_back({"GB/s", [](const BenchRecord& r) { return cell(r.gbs, 0); }});
  c.push_back({"%copy", [](const BenchRecord& r) { return cell(r.pct_of_copy, 1); }});
  c.push_back({"%peak", [](const BenchRecord& r) { return cell(r.pct_of_peak, 1); }});
  c.push_back({"host µs", [](const BenchRecord& r) { return cell(r.host_us, 1); },
               [](const BenchRecord& r) { return r.host_us.has_value(); }});
  c.push_back({"graph µs", [](const BenchRecord& r) { return cell(r.graph_host_us, 1); },
               [](const BenchRecord& r) { return r.graph_host_us.has_value(); }});
  if (!compact)
    c.push_back({"compile ms", [](const BenchRecord& r) { return cell(r.compile_ms, 1); },
                 [](const BenchRecord& r) { return r.compile_ms.has_value(); }});
  c.push_back({"kern", [](const BenchRecord& r) { return std::to_string(r.kernels); },
               [](const BenchRecord& r) { return r.kernels > 0; }});
  c.push_back({"regs", [](const BenchRecord& r) { return r.max_registers() < 0 ? "-" : std::to_string(r.max_registers()); },
               [](const BenchRecord& r) { return r.max_registers() >= 0; }});
  c.push_back({"spill B", [](const BenchRecord& r) { return std::to_string(r.total_spill_bytes()); },
               [](const BenchRecord& r) { return r.total_spill_bytes() > 0; }});
  c.push_back({"recomp", [](const BenchRecord& r) { return std::to_string(r.recompiles); },
               [](const BenchRecord& r) { return r.recompiles > 0; }});
  c.push_back({"eager µs", [](const BenchRecord& r) { return cell(r.eager_us, 1); },
               [](const BenchRecord& r) { return r.eager_us.has_value(); }});
  c.push_back({"compile µs", [](const BenchRecord& r) { return cell(r.compile_us, 1); },
               [](const BenchRecord& r) { return r.compile_us.has_value(); }});
  c.push_back({"×eager", [](const BenchRecord& r) { return cell(r.vs_eager(), 2); },
               [](const BenchRecord& r) { return r.vs_eager().has_value(); }});
  c.push_back({"×compile", [](const BenchRecord& r) { return cell(r.vs_compile(), 2); },
               [](const BenchRecord& r) { return r.vs_compile().has_value(); }});
  return c;
}

TextTable build_table(const BenchReport& rep, bool compact) {
  std::vector<Column> shown;
  for (auto& col : columns(compact)) {
    bool any = false;
    for (const auto& r : rep.records) any = any || col.filled(r);
    if (any || rep.records.empty()) shown.push_back(std::move(col));
  }
  std::vector<std::string> header;
  for (const auto& col : shown) header.push_back(col.header);
  TextTable t(header);
  for (const auto& r : rep.records) {
    std::vector<std::string> row;
    for (const auto& col : shown) row.push_back(col.value(r));
    t.add_row(std::move(row));
  }
  return t;
}

std::string context_lines(const BenchReport& r, const char* bullet) {
  std::string out;
  out += fmt::format("{}device: {}\n", bullet, r.device.empty() ? "unknown" : r.device);
  out += fmt::format("{}date: {}\n", bullet, r.date);
  out += fmt::format("{}large-copy ceiling: {:.0f} GB/s; %copy is against a copy of the same bytes\n", bullet,
                     r.ceiling_gbs);
  out += fmt::format("{}throttle check: {}\n", bullet, r.throttle_note.empty() ? "ok" : r.throttle_note);
  if (!r.peers_note.empty()) out += fmt::format("{}peers: {}\n", bullet, r.peers_note);
  return out;
}

}  // namespace

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (char ch : field) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string report_csv(const BenchReport& rep) {
  std::string out =
      "suite,name,shape,dtype,bytes,median_us,min_us,max_us,mean_us,p10_us,p90_us,spread,n,stop,gbs,copy_gbs,"
      "pct_of_copy,pct_of_peak,host_us,graph_host_us,raw_launch_us,compile_ms,recompiles,kernels,max_registers,spill_bytes,"
      "eager_us,compile_us,vs_eager,vs_compile,note\n";
  for (const auto& r : rep.records) {
    std::vector<std::string> f = {
        r.suite, r.name, r.shape, r.dtype, std::to_string(r.bytes), num(r.time.median), num(r.time.min),
        num(r.time.max), num(r.time.mean), num(r.time.p10), num(r.time.p90), num(r.time.spread),
        std::to_string(r.time.n), stop_reason_name(r.time.stop), num(r.gbs), num(r.copy_gbs), num(r.pct_of_copy),
        num(r.pct_of_peak), num(r.host_us), num(r.graph_host_us), num(r.raw_launch_us), num(r.compile_ms), std::to_string(r.recompiles),
        std::to_string(r.kernels), r.max_registers() < 0 ? "" : std::to_string(r.max_registers()),
        std::to_string(r.total_spill_bytes()), num(r.eager_us), num(r.compile_us), num(r.vs_eager()),
        num(r.vs_compile()), r.note};
    for (size_t i = 0; i < f.size(); ++i) {
      if (i) out += ',';
      out += csv_escape(f[i]);
    }
    out += '\n';
  }
  return out;
}

std::string report_markdown(const BenchReport& r) {
  std::string out = "## Solder benchmark\n\n" + context_lines(r, "- ") + "\n";
  out += build_table(r, /*compact=*/false).markdown();
  out += "\nµs: median GPU time per call (L2 flushed, CUDA events); ±%: (p90-p10)/median; "
         "×eager/×compile: peer time / Solder time (above 1: Solder is faster).\n";
  return out;
}

std::string report_terminal(const BenchReport& r) { return context_lines(r, "") + build_table(r, true).terminal(); }

}  // namespace solder::bench
