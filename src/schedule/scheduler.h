#pragma once
// The scheduler contract. A scheduler takes the kernel segments of one category (pointwise,
// inner reduction / persistent normalization, full reduction, ...) and turns one segment plus
// its launch facts into an ordered list of candidate plans, best first. The compile driver
// (src/pipeline/compile_kernel.cpp) asks the registry which scheduler takes the segment,
// compiles the candidates in order and launches the first that ptxas fits without spills.
// Adding a kernel category = a scheduler file here, its codegen template under src/codegen/,
// and one line in the registry (registry.cpp).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/device_info.h"
#include "schedule/launch_facts.h"
#include "schedule/tuning.h"

namespace solder {

// Everything a scheduler reads; built once per segment and launch signature.
struct ScheduleContext {
  const Fusion& fusion;
  const Segment& segment;
  int segment_index;
  const KernelShape& shape;
  const LaunchFacts& facts;
  const DeviceInfo& device;
  // A recorded autotune choice for a tuning key (tuning_key), or nothing: the heuristics then.
  std::function<std::optional<Choice>(const std::string&)> recorded = {};
  std::optional<Choice> recorded_choice(int64_t cols, int vec) const {
    if (!recorded) return std::nullopt;
    return recorded(tuning_key(fusion.hash(), segment_index, shape.category, cols, vec));
  }
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual const char* name() const = 0;
  // Why this scheduler cannot take the segment, or nothing when it can.
  virtual std::optional<std::string> cannot_schedule(const ScheduleContext& cx) const = 0;
  // Why it leaves a segment it can take to a later scheduler (measured faster there), or
  // nothing. A pinned scheduler (`scheduler=NAME`) takes the segment all the same.
  virtual std::optional<std::string> defers(const ScheduleContext&) const { return std::nullopt; }
  // Candidate plans, best first; each validates (KernelParams::validate). Never empty: the last
  // is the most conservative plan the scheduler has.
  virtual std::vector<KernelPlan> candidates(const ScheduleContext& cx) const = 0;
  // Candidates the compile driver builds side by side at first, where the host has the cores
  // (prepare_kernel): the first plan and its first two fallbacks, or more where first plans
  // often spill (each spill otherwise costs a whole ptxas round before the next is tried). The
  // driver returns at the first that fits, so the others cost cores, not time.
  virtual int compiles_at_once() const { return 3; }
};

// Every scheduler, in priority order: the first that can take a segment does.
const std::vector<const Scheduler*>& schedulers();

struct SchedulerChoice {
  const Scheduler* scheduler = nullptr;
  std::vector<std::string> passed_over;  // "<name>: <why not>" for each scheduler before it
  bool pinned = false;                   // named by the plan: the others not asked
};
// The scheduler that takes the segment: the first that can and does not defer (throws naming
// every reason when none does). `pinned` (a plan's `scheduler=NAME`): that one where it can,
// deferring or not, else an error saying why it cannot.
SchedulerChoice choose_scheduler(const ScheduleContext& cx, const std::string& pinned = "");

}  // namespace solder
