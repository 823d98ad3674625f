#pragma once
// One benchmark case's result (BenchRecord) and one run's report (BenchReport), with JSON
// serialization that round-trips. Formatting for people lives in report_format.h.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/stats.h"

namespace solder::bench {

// ptxas's resource report for one generated kernel of a case, and the plan that ran (so a
// report says which plan its time belongs to).
struct KernelResources {
  std::string name;
  int registers = -1;  // -1: unknown
  int spill_bytes = 0;  // spill stores + loads
  std::string params;  // KernelParams::str() of the launched plan
};

struct BenchRecord {
  std::string suite;  // e.g. "w1"
  std::string name;   // unique within a report; compare.cpp matches cases by it
  std::string shape;  // e.g. "8192x5140"
  std::string dtype;  // e.g. "f16"
  uint64_t bytes = 0;  // every input read once + every output written once
  Summary time;        // Solder's GPU time per call, µs
  double gbs = 0;          // bytes / time.median
  double copy_gbs = 0;     // a copy of the same bytes (B/2 read, B/2 written), same run
  double pct_of_copy = 0;  // 100 * gbs / copy_gbs: the roofline this case can reach
  double pct_of_peak = 0;  // 100 * gbs / the report's large-copy ceiling
  std::optional<double> host_us;        // host time per call, back to back, no sync
  std::optional<double> graph_host_us;  // the same for a replay of the run captured as a CUDA graph (--graphs)
  std::optional<double> raw_launch_us;  // raw cuLaunchKernel of an empty kernel, same run
  std::optional<double> compile_ms;     // cold compile of every kernel of the case
  int recompiles = 0;  // compiles beyond the first during the case (symbolic shapes: 0)
  int kernels = 0;     // kernels launched per call
  std::vector<KernelResources> kernel_resources;
  std::optional<double> eager_us;    // torch eager, same inputs (bench/peers.py)
  std::optional<double> compile_us;  // torch.compile fullgraph
  std::string note;

  // Peer time / Solder time: above 1 means Solder is faster.
  std::optional<double> vs_eager() const;
  std::optional<double> vs_compile() const;
  int max_registers() const;    // over kernel_resources; -1 when unknown
  int total_spill_bytes() const;
};

// Derives gbs / pct_of_copy / pct_of_peak from bytes, time and copy_gbs.
void derive_bandwidth(BenchRecord& r, double ceiling_gbs);

struct BenchReport {
  std::string device;         // e.g. "NVIDIA H100 80GB HBM3 (sm_90a, 132 SMs)"
  std::string date;           // ISO 8601, UTC
  double ceiling_gbs = 0;     // large-copy bandwidth measured at the start of the run
  std::string throttle_note;  // "" when the reference copy did not drift
  std::string peers_note;     // e.g. "torch 2.11" or why peers are missing
  std::vector<BenchRecord> records;

  const BenchRecord* find(const std::string& name) const;
};

std::string utc_now_iso8601();

void to_json(nlohmann::json& j, const Summary& s);
void from_json(const nlohmann::json& j, Summary& s);
void to_json(nlohmann::json& j, const KernelResources& k);
void from_json(const nlohmann::json& j, KernelResources& k);
void to_json(nlohmann::json& j, const BenchRecord& r);
void from_json(const nlohmann::json& j, BenchRecord& r);
void to_json(nlohmann::json& j, const BenchReport& r);
void from_json(const nlohmann::json& j, BenchReport& r);

// File I/O; errors (missing file, bad JSON) throw solder::Error naming the path.
BenchReport load_report(const std::string& path);
void save_report(const std::string& path, const BenchReport& r);

// Merges bench/peers.py output ({case: {eager_us, compile_us}}) into matching records.
// Returns how many records received a peer time.
int apply_peer_times(BenchReport& r, const nlohmann::json& peers);

}  // namespace solder::bench
