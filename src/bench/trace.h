#pragma once
// Chrome trace (Trace Event Format; loads in Perfetto and chrome://tracing) of a Timeline:
// complete events (ph "X", ts/dur in µs) for kernels on a "GPU" process, one thread per
// stream, and host intervals on a "host" process, plus name metadata. Kernel events carry
// their launch shape, registers, spills, occupancy and bandwidth as args.
#include <nlohmann/json.hpp>
#include <string>

#include "bench/timeline.h"

namespace solder::bench {

constexpr int kTraceHostPid = 1;
constexpr int kTraceGpuPid = 2;

nlohmann::json chrome_trace(const Timeline& t, const std::string& title = "solder");
// Throws solder::Error when the file cannot be written.
void write_chrome_trace(const std::string& path, const Timeline& t, const std::string& title = "solder");

}  // namespace solder::bench
