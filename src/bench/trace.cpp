#include "bench/trace.h"

#include <fstream>
#include <set>

#include "bench/kernel_category.h"
#include "solder/error.h"

namespace solder::bench {
namespace {

using nlohmann::json;

json meta(const char* what, int pid, int tid, const std::string& name) {
  return json{{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

json kernel_args(const KernelInterval& k) {
  json a = {{"grid", k.shape.grid}, {"block", k.shape.block}, {"smem_bytes", k.shape.smem_bytes}};
  if (k.registers >= 0) a["registers"] = k.registers;
  a["spill_bytes"] = k.spill_bytes;
  if (k.occupancy >= 0) a["occupancy"] = k.occupancy;
  if (k.bytes) {
    a["bytes"] = k.bytes;
    if (k.dur_us > 0) a["GB/s"] = static_cast<double>(k.bytes) / (k.dur_us * 1e3);
  }
  return a;
}

}  // namespace

json chrome_trace(const Timeline& t, const std::string& title) {
  json events = json::array();
  events.push_back(meta("process_name", kTraceHostPid, 0, title + " host"));
  events.push_back(meta("process_name", kTraceGpuPid, 0, title + " GPU"));
  std::set<int> threads, streams;
  for (const auto& h : t.host) threads.insert(h.thread);
  for (const auto& k : t.kernels) streams.insert(k.stream);
  for (int th : threads) events.push_back(meta("thread_name", kTraceHostPid, th, "thread " + std::to_string(th)));
  for (int s : streams) events.push_back(meta("thread_name", kTraceGpuPid, s, "stream " + std::to_string(s)));

  for (const auto& h : t.host)
    events.push_back(json{{"ph", "X"}, {"name", h.name}, {"cat", "host"}, {"ts", h.start_us}, {"dur", h.dur_us},
                          {"pid", kTraceHostPid}, {"tid", h.thread}});
  for (const auto& k : t.kernels)
    events.push_back(json{{"ph", "X"}, {"name", k.name}, {"cat", kernel_category(k.name)}, {"ts", k.start_us},
                          {"dur", k.dur_us}, {"pid", kTraceGpuPid}, {"tid", k.stream}, {"args", kernel_args(k)}});
  return json{{"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", {{"wall_us", t.wall_us}}}};
}

void write_chrome_trace(const std::string& path, const Timeline& t, const std::string& title) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write chrome trace '" + path + "'");
  out << chrome_trace(t, title).dump() << "\n";
  if (!out) throw Error("failed writing chrome trace '" + path + "'");
}

}  // namespace solder::bench
