#pragma once
// Runs one benchmark case: on the GPU (timing, same-bytes copy roofline, host overhead,
// compile and recompile counts, a reference check on small cases) or, without a GPU, the
// parts that need none (kernels compiled with their ptxas figures, a reference run).
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "bench/record.h"
#include "bench/stats.h"
#include "bench/suite.h"

namespace solder::bench {

struct RunnerOptions {
  RepetitionPolicy reps;
  int host_calls = 300;
  int64_t check_limit = int64_t{1} << 23;  // reference-check cases with at most this many input elements
  bool autotune = false;  // time the scheduler's candidates, record the best in the tuning database
  bool graphs = false;    // also capture each case as a CUDA graph and time its replays (host µs)
  bool contiguous_outputs = false;  // ExecutorOptions::contiguous_outputs (views as outputs are copies)
  std::string plan;                 // ExecutorOptions::plan: pinned kernel plans (the same for every case)
};

BenchRecord run_case_gpu(const BenchCase& c, const RunnerOptions& opts, double ceiling_gbs, double raw_launch_us);
BenchRecord run_case_cpu(const BenchCase& c, const RunnerOptions& opts);

// The case list bench/peers.py reads: name, workload, inputs (name, dtype, shape).
nlohmann::json peer_case(const BenchCase& c);

}  // namespace solder::bench
