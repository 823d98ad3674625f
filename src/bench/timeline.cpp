#include "bench/timeline.h"

#include <fmt/format.h>

namespace solder::bench {

std::string LaunchShape::str() const {
  std::string s = fmt::format("grid {}x{}x{} block {}x{}x{}", grid[0], grid[1], grid[2], block[0], block[1], block[2]);
  if (smem_bytes) s += fmt::format(" smem {}", smem_bytes);
  return s;
}

}  // namespace solder::bench
