// `solder bench [--suite default|quick|norms | PROGRAM... --size SYM=V1,V2...] [--workload NAME]...
//  [--json F] [--csv F] [--md F] [--svg F] [--peers auto|off|FILE] [--keep-going]`: the benchmark suite, or a
//  sweep of programs (.fusion files or workload names) over size axes. On a GPU: Solder's median time,
// GB/s, % of a same-bytes copy, host overhead beside a raw launch, compile/recompile counts,
// and torch eager / torch.compile on the same cases in the same run (bench/peers.py). Without
// a GPU it says so and reports compile times, ptxas figures and reference runs. A case that
// fails is reported as ERROR and the run exits non-zero at the end (--keep-going: exit 0).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <fstream>

#include "bench/gpu_timer.h"
#include "bench/progress.h"
#include "bench/record.h"
#include "bench/report_format.h"
#include "bench/roofline_svg.h"
#include "bench/runner.h"
#include "bench/text_table.h"
#include "commands.h"
#include "ir/limits.h"
#include "runtime/device_info.h"
#include "runtime/driver.h"
#include "solder/error.h"

namespace solder::cli {

namespace {
struct BenchArgs {
  std::vector<std::string> programs, sizes;
  std::string suite = "default";
  std::vector<std::string> workloads;
  std::string json, csv, md, svg, peers = "auto";
  double budget_ms = 1000;
  bool autotune = false;
  bool graphs = false;
  bool contiguous_outputs = false;
  std::string plan;
  bool keep_going = false;
};

// A sweep is the product of its axes: say so before building millions of cases.
constexpr uint64_t kMaxSweepCases = 10000;
void check_sweep_size(const BenchArgs& a) {
  uint64_t n = a.programs.size();
  for (const auto& axis : a.sizes) {
    uint64_t values = 1 + static_cast<uint64_t>(std::count(axis.begin(), axis.end(), ','));
    if (__builtin_mul_overflow(n, values, &n) || n > kMaxSweepCases)
      throw Error("the sweep has more than " + std::to_string(kMaxSweepCases) +
                  " cases (programs x the values of every --size axis); split it into smaller runs");
  }
}

void write_file(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  std::ofstream f(path);
  if (!f) throw Error("cannot write " + path);
  f << text;
}

// Runs bench/peers.py on the case list; returns its JSON (or an {"error": ...} note).
nlohmann::json run_peers(const nlohmann::json& cases, const std::string& mode) {
  if (mode == "off") return {{"error", "peers disabled (--peers off)"}};
  // Bounded reads: a peers "file" that is /dev/zero or a FIFO is an error, not a hang.
  auto parse = [](const std::string& path) {
    std::string text = read_bounded_file(path, kMaxProgramBytes, "peers file");
    try {
      return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw Error("peers file '" + path + "' is not valid JSON: " + e.what());
    }
  };
  if (mode != "auto") return parse(mode);
  std::string dir = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
  std::string cases_path = dir + "/solder_bench_cases.json", out_path = dir + "/solder_bench_peers.json";
  write_file(cases_path, nlohmann::json{{"cases", cases}}.dump(1));
  std::remove(out_path.c_str());
  const char* root = std::getenv("SOLDER_ROOT");  // set when the tree moved (e.g. the device copy)
  std::string script = std::string(root ? root : SOLDER_SOURCE_DIR) + "/bench/peers.py";
  std::string cmd = "python3 " + script + " " + cases_path + " -o " + out_path + " 1>&2";
  std::fprintf(stderr, "bench: running peers: %s\n", cmd.c_str());
  int rc = std::system(cmd.c_str());
  if (rc != 0 || !std::ifstream(out_path)) return {{"error", "bench/peers.py failed (exit " + std::to_string(rc) + ")"}};
  return parse(out_path);
}

void run_bench(const BenchArgs& a) {
  if (a.programs.empty() && !a.sizes.empty()) throw Error("--size needs programs to sweep (or use --suite)");
  check_sweep_size(a);
  auto cases = a.programs.empty() ? bench::suite_cases(a.suite) : bench::sweep_cases(a.programs, a.sizes);
  if (!a.workloads.empty()) {
    std::vector<bench::BenchCase> keep;
    for (auto& c : cases)
      for (const auto& w : a.workloads)
        if (c.workload == w || c.name == w) keep.push_back(c);
    cases = keep;
    if (cases.empty()) throw Error("no case of suite '" + a.suite + "' matches the given --workload");
  }
  bench::BenchReport report;
  report.date = bench::utc_now_iso8601();
  report.device = current_device().describe();
  bench::RunnerOptions opts;
  opts.reps.budget_ms = a.budget_ms;
  opts.autotune = a.autotune;
  opts.graphs = a.graphs;
  opts.contiguous_outputs = a.contiguous_outputs;
  opts.plan = a.plan;
  const bool gpu = has_gpu();
  double raw_launch = 0;
  bench::TimingOptions to;
  bench::ThrottleCheck throttle;
  if (gpu) {
    report.ceiling_gbs = bench::copy_ceiling_gbs(to);
    raw_launch = bench::raw_launch_overhead_us(2000);
    throttle.start(to);
    std::printf("device: %s\nlarge-copy ceiling %.0f GB/s, raw cuLaunchKernel %.2f us\n", report.device.c_str(),
                report.ceiling_gbs, raw_launch);
  } else {
    std::printf("no GPU (%s): reporting compile times, ptxas figures and reference runs only\n",
                driver_unavailable_reason().c_str());
  }
  bench::ProgressBar bar(cases.size(), "bench");
  size_t failed = 0;
  nlohmann::json peer_cases = nlohmann::json::array();
  for (const auto& c : cases) {
    bar.step(c.name);
    try {
      report.records.push_back(gpu ? bench::run_case_gpu(c, opts, report.ceiling_gbs, raw_launch)
                                   : bench::run_case_cpu(c, opts));
      peer_cases.push_back(bench::peer_case(c));
      // A sweep cut short (a device time limit) keeps the rows it has.
      if (!a.json.empty()) bench::save_report(a.json, report);
      write_file(a.md, bench::report_markdown(report));
    } catch (const std::exception& e) {  // one bad case (even out of memory) keeps the sweep's other rows
      bench::BenchRecord r;
      r.name = c.name;
      r.note = std::string("ERROR: ") + (dynamic_cast<const std::bad_alloc*>(&e) ? "out of memory" : e.what());
      report.records.push_back(r);
      ++failed;
    }
  }
  bar.finish();
  if (gpu) {
    bench::Drift d = throttle.finish(to);
    report.throttle_note = d.note;
    if (!a.json.empty()) bench::save_report(a.json, report);  // keep Solder's figures if peers fail
    std::printf("%s", bench::report_terminal(report).c_str());
    nlohmann::json peers = run_peers(peer_cases, a.peers);
    if (peers.contains("error")) report.peers_note = peers["error"].get<std::string>();
    else report.peers_note = std::to_string(bench::apply_peer_times(report, peers)) + " cases with torch timings";
  } else {
    report.peers_note = "no GPU: peers not run";
  }
  if (!a.json.empty()) bench::save_report(a.json, report);
  write_file(a.csv, bench::report_csv(report));
  write_file(a.md, bench::report_markdown(report));
  write_file(a.svg, bench::roofline_svg(report));
  if (gpu) {
    std::printf("%s", bench::report_terminal(report).c_str());
  } else {
    // Without a GPU the timing columns would be empty: show what was measured instead.
    bench::TextTable t({"case", "kernels", "max regs", "spill B", "compile ms", "note"});
    for (const auto& r : report.records)
      t.add_row({r.name, std::to_string(r.kernels), r.max_registers() < 0 ? "-" : std::to_string(r.max_registers()),
                 std::to_string(r.total_spill_bytes()), bench::cell(r.compile_ms, 1), r.note});
    std::printf("%s", t.terminal().c_str());
  }
  if (failed && !a.keep_going)
    throw Error(std::to_string(failed) + " of " + std::to_string(cases.size()) +
                " bench cases failed (see ERROR above; --keep-going exits 0 anyway)");
}
}  // namespace

void register_bench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Benchmark the W1-W5 suite (or a sweep) against a same-bytes copy and torch");
  cmd->add_option("programs", a->programs, ".fusion files or workload names to sweep instead of a suite");
  cmd->add_option("--size", a->sizes, "a size axis for the programs, SYM=V1,V2,... (repeatable)");
  cmd->add_option("--suite", a->suite, "default | quick | norms");
  cmd->add_option("--workload", a->workloads, "only cases of this workload (repeatable)");
  cmd->add_option("--json", a->json, "write the report as JSON");
  cmd->add_option("--csv", a->csv, "write the report as CSV");
  cmd->add_option("--md", a->md, "write the report as a markdown table");
  cmd->add_option("--svg", a->svg, "write a roofline picture (SVG)");
  cmd->add_option("--peers", a->peers, "auto (run bench/peers.py) | off | a peers JSON file");
  cmd->add_option("--budget-ms", a->budget_ms, "time budget per case for timed repetitions");
  cmd->add_option("--plan", a->plan, "pin kernel plans as `solder explain --plan` does (every case; to compare plans)");
  cmd->add_flag("--autotune", a->autotune, "time the scheduler's candidates per case and keep the best (disk)");
  cmd->add_flag("--graphs", a->graphs, "also capture each case as a CUDA graph and time its replays (graph µs)");
  cmd->add_flag("--contiguous-outputs", a->contiguous_outputs,
                "make every output contiguous, as Python callers get (a permuted output is written transposed)");
  cmd->add_flag("--keep-going", a->keep_going, "exit 0 even when some cases fail (they are still reported)");
  cmd->callback([a] { run_bench(*a); });
}

}  // namespace solder::cli
