#include "bench/step_timeline.h"

#include <string>

namespace solder::bench {

Timeline timeline_from_steps(const std::vector<ProfiledIteration>& iterations) {
  Timeline t;
  double origin = 0;
  for (size_t i = 0; i < iterations.size(); ++i) {
    const ProfiledIteration& it = iterations[i];
    t.host.push_back({"iteration " + std::to_string(i), origin, it.wall_us, 0});
    double cursor = origin;
    for (const StepTiming& s : it.steps) {
      if (!s.launched()) {
        t.host.push_back({s.name, cursor, 0, 0});
        continue;
      }
      KernelInterval k;
      k.name = s.name;
      k.start_us = cursor;
      k.dur_us = 1e3 * static_cast<double>(s.ms);
      k.shape.grid = {s.grid_x ? s.grid_x : 1, s.grid_y ? s.grid_y : 1, 1};
      k.shape.block = {s.block ? s.block : 1, 1, 1};
      k.registers = s.registers > 0 ? s.registers : -1;
      k.spill_bytes = s.spill_bytes;
      k.bytes = s.bytes > 0 ? static_cast<uint64_t>(s.bytes) : 0;
      t.kernels.push_back(k);
      cursor += k.dur_us;
    }
    origin += it.wall_us;
    t.wall_us += it.wall_us;
  }
  return t;
}

}  // namespace solder::bench
