// The outer_norm scheduler's plans against ptxas (issue 27's register model, a CPU experiment):
// for normalizations over transposed views and over a middle axis (f32/f16/bf16), the first
// three candidates (the plan a run compiles first and its spill retries) compiled at their
// register cap (a spill: the scheduler's held-row budget missed) and without one, beside an
// estimate by parts (fixed, held rows, column inputs, statistics). Results and what they say:
// docs/perf-notes.md (2026-12-03, CPU), raw table docs/results/2026-12-03/cpu/outer_norm_registers.txt.
// Not part of the build; after scripts/setup.sh (about 3 minutes, about 140 NVRTC compiles):
//   W=$PWD; g++ -std=gnu++20 -O1 -DNDEBUG -DFMT_HEADER_ONLY=1 -I$W/src -I$W/include -I$W/tests \
//     -isystem /usr/local/cuda/include $W/bench/experiments/outer_norm_registers.cpp $W/build/libsolder.a \
//     -L/usr/local/cuda/lib64 -lnvrtc -ldl -lpthread -o /tmp/outer_norm_registers && /tmp/outer_norm_registers
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "codegen/kernel_codegen.h"
#include "pipeline/compile_kernel.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "runtime/compiler.h"
#include "runtime/device_info.h"
#include "schedule/outer_view.h"
#include "schedule/scheduler.h"
#include "schedule/stages.h"
#include "support/lowered_kernel.h"
#include "support/outer_norm_programs.h"

using namespace solder;
using namespace solder::testing;

namespace {

// Registers a thread of an outer_norm plan needs, by part (an estimate to hold against ptxas).
struct OuterNormRegisters {
  int fixed = 0;  // addresses, strides, indices and the pass's math
  int rows = 0;   // held rows in registers (re-read plans: the rows in flight)
  int cols = 0;   // column inputs, held for the whole kernel (a register per element)
  int stats = 0;  // the reductions' results, kept to the last pass
  int total() const { return fixed + rows + cols + stats; }
};
constexpr int kFixedRegs = 16, kOperandRegs = 6;

OuterNormRegisters estimate(const ScheduleContext& cx, const KernelPlan& plan) {
  const KernelParams& p = plan.params;
  OuterNormRegisters r;
  r.fixed = kFixedRegs;
  int row = 0;  // one row's registers
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    const OperandPlan& o = plan.operands[k];
    const int b = dtype_size(cx.facts.operands[k].dtype), words = (b + 3) / 4;
    r.fixed += kOperandRegs;
    if (o.is_output) continue;
    if (o.access == Access::Full) row += (p.vec * b + 3) / 4;
    if (o.access == Access::General) row += b == 2 && p.vec % 2 == 0 ? p.vec / 2 : p.vec * words;
    if (o.access == Access::Col) r.cols += p.vec * words;
  }
  r.rows = row * (p.batch > 0 ? p.batch - p.smem_rows : p.unroll);
  for (const ReductionStep& st : plan_stages(cx.fusion, cx.segment, cx.shape, false, false).steps) {
    const int b = accumulator_bytes(cx.fusion.value(cx.fusion.nodes()[st.node].out[0]).dtype);
    r.stats += p.vec * (st.welford ? 2 : 1) * ((b + 3) / 4);
  }
  return r;
}

}  // namespace

// The outer_norm scheduler's model against ptxas over its first candidates (the plan a run
// compiles first, and the retries after it) for normalizations over transposed views and over
// a middle axis: each compiled at its cap (a spill: the model's miss where it let the plan
// through) and without one.
int main() {
  const DeviceInfo dev = h100_profile();
  struct Row {
    std::string what;
    OuterNormRegisters est;
    int cap = 0, capped = 0, spilled = 0, free = 0;
  };
  std::vector<Row> rows;
  for (const auto& [f, sizes] : outer_norm_register_corpus()) {
    const Lowered l = lowered(f, sizes);
    const ScheduleContext cx{l.sf.fusion, l.sf.segments.at(l.si), l.si, l.ks, l.facts, dev};
    const SchedulerChoice choice = choose_scheduler(cx);
    if (std::string(choice.scheduler->name()) != "outer_norm") continue;
    const std::vector<KernelPlan> plans = choice.scheduler->candidates(cx);
    for (size_t i = 0; i < std::min<size_t>(3, plans.size()); ++i) {
      const KernelPlan& plan = plans[i];
      Row r;
      r.what = f.name() + " " + std::string(dtype_name(l.sf.fusion.value(l.ks.operands[0]).dtype));
      for (const auto& [k, v] : sizes) r.what += " " + k + "=" + std::to_string(v);
      r.what += " #" + std::to_string(i) + " (" + plan.params.str() + ")";
      r.est = estimate(cx, plan);
      r.cap = std::min(dev.max_regs_per_thread, dev.register_cap(int64_t{plan.params.threads} * std::max(1, plan.params.min_blocks)));
      KernelPlan uncapped = plan;
      uncapped.params.min_blocks = 1;
      const KernelSource a = generate_kernel(l.sf.fusion, l.sf.segments.at(l.si), plan);
      const CompiledKernel ka = compile_cuda(a.source, a.name, dev.arch());
      r.capped = ka.ptxas.registers;
      r.spilled = ka.ptxas.spill_store_bytes + ka.ptxas.spill_load_bytes;
      if (uncapped.params.min_blocks != plan.params.min_blocks || r.spilled) {
        const KernelSource u = generate_kernel(l.sf.fusion, l.sf.segments.at(l.si), uncapped);
        r.free = compile_cuda(u.source, u.name, dev.arch()).ptxas.registers;
      } else {
        r.free = r.capped;
      }
      std::printf("  %-120s model %3d (fixed %d rows %d cols %d stats %d) cap %3d: %3d regs %4d B spilled; free %3d\n",
                  r.what.c_str(), r.est.total(), r.est.fixed, r.est.rows, r.est.cols, r.est.stats, r.cap, r.capped,
                  r.spilled, r.free);
      std::fflush(stdout);
      rows.push_back(r);
    }
  }
  std::printf("%zu plans\n", rows.size());
  return 0;
}
