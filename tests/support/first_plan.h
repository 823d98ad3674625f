#pragma once
// The scheduler's first candidate for a program's (first) kernel at given sizes and input
// layouts, without a GPU: the CPU tiers' check of which plan a scheduler picks (flat_index_test,
// shift_loads_test), optionally compiled (NVRTC, ptxas figures); and the plan a run takes
// (compiled_launch: spill retries included).
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pipeline/compile_kernel.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "runtime/device_info.h"
#include "runtime/kernel_cache.h"
#include "schedule/scheduler.h"
#include "solder/executor.h"

namespace solder::testing {

// How an input is laid out: its innermost dim padded by `pad` elements (a slice of a wider
// tensor: row stride != row length) and its first element `offset` elements past alignment.
struct InputLayout {
  int64_t pad = 0, offset = 0;
};

struct Scheduled {
  SegmentedFusion sf;  // the lowered program, and its kernel's segment
  int segment = 0;
  std::string scheduler;
  KernelPlan plan;  // the first candidate
  LaunchFacts facts;
  KernelShape shape;
  PreparedKernel prepared;  // with `compile`
};

inline Scheduled schedule(const Fusion& f0, const Bindings& sizes, const std::map<int, InputLayout>& layouts = {},
                          bool compile = false) {
  SegmentedFusion sf = lower(f0);
  const Fusion& f = sf.fusion;
  const Bindings b = bind_shapes(f, resolve_input_shapes(f0, {}, sizes));
  int si = 0;
  while (sf.segments.at(si).kind != SegmentKind::Kernel) ++si;
  const Segment& s = sf.segments.at(si);
  KernelShape ks = analyze_kernel(f, s);
  std::vector<std::vector<int64_t>> shapes, strides;
  std::vector<uint64_t> addresses;
  for (int v : ks.operands) {
    // A view's facts come from its input's layout (kernel_facts applies the view's offset).
    shapes.push_back(eval_shape(f.value(v).shape, b));
    InputLayout l;
    for (size_t i = 0; i < f.inputs().size(); ++i)
      if (f.inputs()[i] == v && layouts.count(static_cast<int>(i))) l = layouts.at(static_cast<int>(i));
    const std::vector<int64_t>& sh = shapes.back();
    std::vector<int64_t> st(sh.size(), 1);
    int64_t acc = 1;
    for (int d = static_cast<int>(sh.size()) - 1; d >= 0; --d) {
      st[d] = acc;
      acc *= sh[d] + (d + 1 == static_cast<int>(sh.size()) ? l.pad : 0);
    }
    strides.push_back(st);
    addresses.push_back(kAlignClass + static_cast<uint64_t>(l.offset * dtype_size(f.value(v).dtype)));
  }
  Scheduled c;
  c.segment = si;
  c.facts = kernel_facts(sf, si, ks, shapes, strides, addresses, &b);
  c.shape = ks;
  const DeviceInfo dev = h100_profile();
  const ScheduleContext cx{f, s, si, ks, c.facts, dev};
  const SchedulerChoice sc = choose_scheduler(cx);
  c.scheduler = sc.scheduler->name();
  c.plan = sc.scheduler->candidates(cx).front();
  if (compile) c.prepared = prepare_kernel(sf, si, ks, c.facts, dev, KernelCache::global());
  c.sf = std::move(sf);
  return c;
}

// The launch record of the program's first kernel of `category` (e.g. "pointwise",
// "inner-reduction") for contiguous inputs of these sizes, planned and compiled as a run would
// (a program's views at their real offsets and strides).
inline LaunchRecord compiled_launch(const Fusion& f, const Bindings& sizes, const std::string& category) {
  for (const LaunchRecord& l : Executor(f).compile_for(resolve_input_shapes(f, {}, sizes)))
    if (l.category == category) return l;
  ADD_FAILURE() << "no " << category << " kernel";
  return {};
}

}  // namespace solder::testing
