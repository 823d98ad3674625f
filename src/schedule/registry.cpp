#include "schedule/registry.h"

#include "solder/error.h"

namespace solder {

const std::vector<const Scheduler*>& schedulers() {
  static const std::vector<const Scheduler*> all = {
      &pointwise_scheduler(),  // refuses exactly the transposes (transpose_view.h), saying why
      &transpose_scheduler(),  // also full reductions whose inputs disagree (before full_reduction)
      &outer_scheduler(),  // before inner: it takes the Inner segments that reduce non-innermost dims
      &outer_norm_scheduler(),  // before inner: normalizations over non-innermost dims
      &inner_scheduler(),
      &full_reduction_scheduler(),
  };
  return all;
}

SchedulerChoice choose_scheduler(const ScheduleContext& cx, const std::string& pinned) {
  SchedulerChoice c;
  if (!pinned.empty()) {
    std::string names;
    for (const Scheduler* s : schedulers()) {
      names += std::string(names.empty() ? "" : ", ") + s->name();
      if (s->name() != pinned) continue;
      if (auto why = s->cannot_schedule(cx))
        throw Error("schedule: the pinned scheduler " + pinned + " cannot take kernel segment " + std::to_string(cx.segment_index) +
                    " of " + cx.fusion.name() + ": " + *why);
      c.scheduler = s;
      c.pinned = true;
      return c;
    }
    throw Error("plan: no scheduler named " + pinned + " (" + names + ")");
  }
  for (const Scheduler* s : schedulers()) {
    auto why = s->cannot_schedule(cx);
    if (!why) why = s->defers(cx);
    if (why) {
      c.passed_over.push_back(std::string(s->name()) + ": " + *why);
      continue;
    }
    c.scheduler = s;
    return c;
  }
  std::string why;
  for (const auto& p : c.passed_over) why += "\n  " + p;
  throw Error("schedule: no scheduler takes kernel segment " + std::to_string(cx.segment_index) + " of " +
              cx.fusion.name() + ":" + why);
}

}  // namespace solder
