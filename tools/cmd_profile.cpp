// `solder profile FILE [--shape NAME=AxB]... [--size SYM=N]... [--iters N] [--trace F]
//  [--dump-dir DIR]`: where the GPU time of one program goes (seed 002). One warm-up run, then
// N runs with CUDA events around every step: a per-kernel table, the breakdown by category and
// the % of wall time the GPU is busy; a chrome trace on request; the generated sources and
// ptxas reports on request. Without a GPU: the plan (kernels, registers, spills, launch shape)
// and the sources, which need no GPU.
#include <cstdio>

#include "bench/profile_run.h"
#include "bench/profile_table.h"
#include "bench/step_timeline.h"
#include "bench/text_table.h"
#include "bench/trace.h"
#include "commands.h"
#include "frontend/kernel_dump.h"
#include "programs/load_program.h"
#include "programs/run_inputs.h"
#include "frontend/size_args.h"
#include "runtime/device_info.h"
#include "runtime/driver.h"
#include "solder/error.h"
#include "solder/executor.h"

namespace solder::cli {

namespace {
struct ProfileArgs {
  std::string program;
  std::vector<std::string> shapes, sizes;
  int iters = 20;
  uint64_t seed = 0;
  std::string trace, dump_dir;
};

void dump(const std::vector<KernelSourceInfo>& kernels, const std::string& dir) {
  if (dir.empty()) return;
  dump_kernel_sources(kernels, dir);
  std::printf("wrote %zu kernel sources and ptxas reports to %s\n", kernels.size(), dir.c_str());
}

// No GPU: what planning and compiling alone can tell.
void profile_without_gpu(const Executor& ex, const std::vector<std::vector<int64_t>>& shapes, const ProfileArgs& a) {
  std::printf("no GPU: %s\n", driver_unavailable_reason().c_str());
  std::printf("plan for %s (compiled for %s); no timings\n", ex.fusion().name().c_str(),
              current_device().describe().c_str());
  std::vector<KernelSourceInfo> sources;
  auto records = ex.compile_for(shapes, a.dump_dir.empty() ? nullptr : &sources);
  bench::TextTable t({"kernel", "category", "regs", "spill B", "grid", "block", "params"});
  for (const auto& r : records)
    t.add_row({r.name, r.category, std::to_string(r.registers), std::to_string(r.spill_bytes),
               std::to_string(r.grid_x) + "x" + std::to_string(r.grid_y), std::to_string(r.block), r.params});
  std::printf("%s", t.terminal().c_str());
  if (!a.trace.empty()) std::printf("no chrome trace written: it needs timings\n");
  dump(sources, a.dump_dir);
}

void profile_on_gpu(Executor& ex, const std::vector<HostTensor>& host_inputs, const ProfileArgs& a) {
  std::printf("device: %s\n", current_device().describe().c_str());
  std::vector<DeviceTensor> inputs;
  for (const auto& h : host_inputs) inputs.push_back(to_device(h));
  auto iterations = bench::profile_iterations(ex, inputs, a.iters);
  bench::Timeline timeline = bench::timeline_from_steps(iterations);
  std::printf("fusion %s: %d profiled runs after 1 warm-up\n", ex.fusion().name().c_str(), a.iters);
  bench::Profile p = bench::build_profile(timeline);
  std::printf("%s", bench::format_profile(p).c_str());
  // Events and their records cost host time; the seed compares with an unprofiled wall too.
  double plain_us = bench::unprofiled_wall_us(ex, inputs, a.iters);
  if (plain_us > 0 && a.iters > 0)
    std::printf("unprofiled: %.1f µs wall per run; GPU busy against it: %.1f%%\n", plain_us,
                100.0 * p.kernel_us / a.iters / plain_us);
  if (!a.trace.empty()) {
    bench::write_chrome_trace(a.trace, timeline, ex.fusion().name());
    std::printf("chrome trace for the profile written to %s\n", a.trace.c_str());
  }
  dump(ex.kernel_sources(), a.dump_dir);
}

void run_profile(const ProfileArgs& a) {
  if (a.iters < 1) throw Error("--iters must be at least 1");
  Fusion f = load_program(a.program);
  verify(f);
  auto shapes = resolve_input_shapes(f, parse_shape_args(a.shapes), parse_size_args(a.sizes));
  Executor ex(f);
  if (!has_gpu()) return profile_without_gpu(ex, shapes, a);
  profile_on_gpu(ex, make_random_inputs(f, shapes, a.seed), a);
}
}  // namespace

void register_profile(CLI::App& app) {
  auto args = std::make_shared<ProfileArgs>();
  auto* cmd = app.add_subcommand("profile", "Where the GPU time of a program goes: per kernel, per category, % busy");
  add_program_options(cmd, args->program, args->shapes, args->sizes);
  cmd->add_option("--iters", args->iters, "profiled runs after the warm-up (default 20)");
  cmd->add_option("--seed", args->seed, "seed of the random inputs (input i uses seed + i)");
  cmd->add_option("--trace", args->trace, "write a chrome trace (chrome://tracing, Perfetto) to this file");
  cmd->add_option("--dump-dir", args->dump_dir, "write each kernel's .cu source and ptxas report here");
  cmd->callback([args] { run_profile(*args); });
}

}  // namespace solder::cli
