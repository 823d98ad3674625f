#include "bench/runner.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "bench/gpu_timer.h"
#include "programs/load_program.h"
#include "programs/run_inputs.h"
#include "ops/workloads.h"
#include "runtime/driver.h"
#include "runtime/kernel_cache.h"
#include "pipeline/tuning_db.h"
#include "solder/error.h"
#include "solder/executor.h"
#include "solder/reference.h"

namespace solder::bench {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::vector<std::vector<int64_t>> shapes_of(const Fusion& f, const BenchCase& c) {
  return resolve_input_shapes(f, {}, c.sizes);
}

std::string shape_text(const BenchCase& c) {
  std::string s;
  for (const auto& [k, v] : c.sizes) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return s.empty() ? "fixed" : s;
}

uint64_t io_bytes(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, const Bindings& b) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    uint64_t n = 1;
    for (auto d : shapes[i]) n *= static_cast<uint64_t>(d);
    bytes += n * dtype_size(f.value(f.inputs()[i]).dtype);
  }
  for (int o : f.outputs()) {
    uint64_t n = 1;
    for (auto d : eval_shape(f.value(o).shape, b)) n *= static_cast<uint64_t>(d);
    bytes += n * dtype_size(f.value(o).dtype);
  }
  return bytes;
}

// Largest relative error of `got` vs `want` over all outputs (NaN where exactly one is NaN).
double max_rel_error(const std::vector<HostTensor>& got, const std::vector<HostTensor>& want) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double scale = 1e-6;
    for (int64_t k = 0; k < want[i].numel(); ++k)
      if (std::isfinite(want[i].get(k))) scale = std::max(scale, std::fabs(want[i].get(k)));
    for (int64_t k = 0; k < want[i].numel(); ++k) {
      double g = got[i].get(k), w = want[i].get(k);
      if (std::isnan(w) != std::isnan(g)) return NAN;
      if (std::isnan(w) || (std::isinf(w) && g == w)) continue;
      worst = std::max(worst, std::fabs(g - w) / std::max(std::fabs(w), scale * 1e-3));
    }
  }
  return worst;
}

int64_t input_elements(const std::vector<std::vector<int64_t>>& shapes) {
  int64_t n = 0;
  for (const auto& s : shapes) {
    int64_t e = 1;
    for (auto d : s) e *= d;
    n += e;
  }
  return n;
}
// Times each candidate choice of the case's (single) kernel; records a winner that beats the
// heuristic by more than the noise (3%) and reports the gain in the note.
void autotune_case(const Fusion& f, const std::vector<DeviceTensor>& dev, const std::vector<LaunchRecord>& launches,
                   BenchRecord& r, const TimingOptions& base, const ExecutorOptions& eo) {
  const LaunchRecord* k = nullptr;
  int n = 0;
  for (const auto& l : launches)
    if (!l.tuning_key.empty()) {
      k = &l;
      ++n;
    }
  if (n != 1) {
    r.note += "; autotune: skipped (" + std::to_string(n) + " kernels)";
    return;
  }
  if (k->category == "outer-reduction" || k->category == "transpose") {
    r.note += "; autotune: no tuning candidates for " + k->category + " kernels yet";
    return;
  }
  KernelCategory cat = k->category == "inner-reduction" ? KernelCategory::Inner
                       : k->category == "full-reduction" ? KernelCategory::Full
                                                          : KernelCategory::Pointwise;
  TimingOptions to = base;
  to.reps.budget_ms = std::min(base.reps.budget_ms, 300.0);
  double best = r.time.median;
  std::optional<Choice> winner;
  for (const Choice& c : tuning_candidates(cat, k->cols, k->vec)) {
    set_forced_choice(c);
    try {
      Executor trial(f, eo);
      trial.run(dev);
      double t = time_gpu([&](CUstream s) { trial.run(dev, s); }, to).median;
      std::fprintf(stderr, "autotune %s: %s %.2f us (%s)\n", r.name.c_str(), c.str().c_str(), t,
                   trial.last_launches().empty() ? "" : trial.last_launches()[0].params.c_str());
      if (t < best) {
        best = t;
        winner = c;
      }
    } catch (const Error&) {
      // a candidate that cannot be built (e.g. every plan spills) is simply not a winner
    }
  }
  set_forced_choice(std::nullopt);
  char buf[160];
  if (winner && best < 0.97 * r.time.median) {
    TuneDb::global().record(k->tuning_key, *winner, r.time.median, best);
    std::snprintf(buf, sizeof buf, "; autotune: %s %.1f%% faster than the heuristic", winner->str().c_str(),
                  100.0 * (r.time.median / best - 1.0));
  } else {
    std::snprintf(buf, sizeof buf, "; autotune: heuristic within 3%% of the best candidate");
  }
  r.note += buf;
}

// --graphs: the case captured as a CUDA graph (Executor::capture); its replay's host time per
// call, back to back like host_us, and (checked cases) its outputs against a plain run's.
void time_graph_replays(Executor& ex, const std::vector<DeviceTensor>& dev, const RunnerOptions& opts, BenchRecord& r,
                        int64_t elements) {
  try {
    auto graph = ex.capture(dev);
    r.graph_host_us = host_overhead_us([&](CUstream s) { graph->replay(s); }, opts.host_calls);
    if (elements > opts.check_limit) return;
    auto plain = ex.run(dev);
    check_cuda(driver()->cuCtxSynchronize(), "a run beside the graph of " + r.name);
    std::vector<HostTensor> got, want;
    for (const auto& o : graph->outputs()) got.push_back(to_host(o));
    for (const auto& o : plain) want.push_back(to_host(o));
    if (const double err = max_rel_error(got, want); !(err <= 1e-3)) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "; GRAPH REPLAY DIFFERS from a run: max rel err %.2g", err);
      r.note += buf;
    }
  } catch (const Error& e) {
    r.note += std::string("; graph capture failed: ") + e.what();
    r.graph_host_us.reset();
  }
}
}  // namespace

// The identifying columns of a case's record: name, shape, dtype and the bytes it must move.
BenchRecord case_record(const Fusion& f, const BenchCase& c, const std::vector<std::vector<int64_t>>& shapes) {
  BenchRecord r;
  r.suite = f.name().substr(0, 2);
  r.name = c.name;
  r.shape = shape_text(c);
  r.dtype = std::string(dtype_name(f.value(f.inputs()[0]).dtype));
  r.bytes = io_bytes(f, shapes, bind_shapes(f, shapes));
  return r;
}

nlohmann::json peer_case(const BenchCase& c) {
  Fusion f = load_program(c.workload);
  auto shapes = shapes_of(f, c);
  nlohmann::json ins = nlohmann::json::array();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Value& v = f.value(f.inputs()[i]);
    ins.push_back({{"name", v.name}, {"dtype", std::string(dtype_name(v.dtype))}, {"shape", shapes[i]}});
  }
  // Peers know workloads by name: a program file of a workload carries that name.
  return {{"name", c.name}, {"workload", f.name()}, {"inputs", ins}, {"host_latency", c.host_latency}};
}

BenchRecord run_case_gpu(const BenchCase& c, const RunnerOptions& opts, double ceiling, double raw_launch_us) {
  Fusion f = load_program(c.workload);
  auto shapes = shapes_of(f, c);
  BenchRecord r = case_record(f, c, shapes);

  std::vector<HostTensor> host = make_random_inputs(f, shapes, 1);
  std::vector<DeviceTensor> dev;
  for (const auto& h : host) dev.push_back(to_device(h));
  Executor ex(f, ExecutorOptions{opts.plan, opts.contiguous_outputs});
  auto t0 = Clock::now();
  auto outs = ex.run(dev);
  check_cuda(driver()->cuCtxSynchronize(), "first run of " + c.name);
  r.compile_ms = ms_since(t0);
  const int64_t compiled_after_first = ex.stats().kernels_compiled;
  for (const auto& l : ex.last_launches()) {
    if (l.category == "view") continue;
    ++r.kernels;
    r.kernel_resources.push_back({l.name, l.registers, l.spill_bytes, l.params});
  }
  if (input_elements(shapes) <= opts.check_limit) {
    std::vector<HostTensor> got;
    for (const auto& o : outs) got.push_back(to_host(o));
    double err = max_rel_error(got, run_reference(f, host));
    char buf[96];
    std::snprintf(buf, sizeof buf, "ref max rel err %.2g", err);
    r.note = std::isnan(err) ? "CHECK FAILED: NaN mismatch vs reference" : buf;
  } else {
    r.note = "ref check skipped (size)";
  }
  outs.clear();

  TimingOptions to;
  to.reps = opts.reps;
  auto fn = [&](CUstream s) { ex.run(dev, s); };
  r.time = time_gpu(fn, to);
  r.copy_gbs = gbs(r.bytes, time_copy(r.bytes, to).median);
  derive_bandwidth(r, ceiling);
  r.host_us = host_overhead_us(fn, opts.host_calls);
  if (opts.graphs) time_graph_replays(ex, dev, opts, r, input_elements(shapes));
  r.raw_launch_us = raw_launch_us;
  r.recompiles = static_cast<int>(ex.stats().kernels_compiled - compiled_after_first);
  if (opts.autotune) autotune_case(f, dev, ex.last_launches(), r, to, ExecutorOptions{opts.plan, opts.contiguous_outputs});
  return r;
}

BenchRecord run_case_cpu(const BenchCase& c, const RunnerOptions& opts) {
  Fusion f = load_program(c.workload);
  auto shapes = shapes_of(f, c);
  BenchRecord r = case_record(f, c, shapes);
  Executor ex(f, ExecutorOptions{opts.plan, opts.contiguous_outputs});
  auto t0 = Clock::now();
  auto recs = ex.compile_for(shapes);
  r.compile_ms = ms_since(t0);
  for (const auto& l : recs) {
    ++r.kernels;
    r.kernel_resources.push_back({l.name, l.registers, l.spill_bytes, l.params});
  }
  if (input_elements(shapes) <= opts.check_limit / 8) {
    auto t1 = Clock::now();
    run_reference(f, make_random_inputs(f, shapes, 1));
    char buf[64];
    std::snprintf(buf, sizeof buf, "reference ran in %.0f ms", ms_since(t1));
    r.note = buf;
  } else {
    r.note = "no GPU: compiled only";
  }
  return r;
}

}  // namespace solder::bench
