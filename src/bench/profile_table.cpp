#include "bench/profile_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "bench/kernel_category.h"
#include "bench/text_table.h"

namespace solder::bench {
namespace {

struct Acc {
  KernelRow row;
  double timed_with_bytes_us = 0;
  double bytes = 0;
  std::vector<std::pair<LaunchShape, int>> shapes;
};

void add_shape(Acc& a, const LaunchShape& s) {
  for (auto& [shape, n] : a.shapes)
    if (shape == s) {
      ++n;
      return;
    }
  a.shapes.push_back({s, 1});
}

std::string shape_summary(const Acc& a) {
  if (a.shapes.empty()) return "";
  auto most = std::max_element(a.shapes.begin(), a.shapes.end(),
                               [](const auto& x, const auto& y) { return x.second < y.second; });
  std::string s = most->first.str();
  if (a.shapes.size() > 1) s += fmt::format(" (+{} other)", a.shapes.size() - 1);
  return s;
}

}  // namespace

Profile build_profile(const Timeline& t) {
  std::map<std::string, Acc> by_name;
  Profile p;
  for (const auto& k : t.kernels) {
    Acc& a = by_name[k.name];
    a.row.name = k.name;
    a.row.total_us += k.dur_us;
    a.row.calls += 1;
    a.row.registers = std::max(a.row.registers, k.registers);
    a.row.spill_bytes = std::max(a.row.spill_bytes, k.spill_bytes);
    if (k.occupancy >= 0) a.row.occupancy = k.occupancy;
    if (k.bytes) {
      a.bytes += static_cast<double>(k.bytes);
      a.timed_with_bytes_us += k.dur_us;
    }
    add_shape(a, k.shape);
    p.kernel_us += k.dur_us;
  }
  std::map<std::string, CategoryRow> cats;
  for (auto& [name, a] : by_name) {
    KernelRow r = a.row;
    r.category = kernel_category(name);
    r.avg_us = r.total_us / r.calls;
    r.share_pct = p.kernel_us > 0 ? 100.0 * r.total_us / p.kernel_us : 0;
    r.gbs = a.timed_with_bytes_us > 0 ? a.bytes / (a.timed_with_bytes_us * 1e3) : 0;
    r.shape = shape_summary(a);
    CategoryRow& c = cats[r.category];
    c.category = r.category;
    c.total_us += r.total_us;
    c.kernels += 1;
    c.calls += r.calls;
    p.kernels.push_back(r);
  }
  std::stable_sort(p.kernels.begin(), p.kernels.end(),
                   [](const KernelRow& x, const KernelRow& y) { return x.total_us > y.total_us; });
  for (const auto& name : kernel_categories()) {
    auto it = cats.find(name);
    if (it == cats.end()) continue;
    it->second.share_pct = p.kernel_us > 0 ? 100.0 * it->second.total_us / p.kernel_us : 0;
    p.categories.push_back(it->second);
  }
  p.wall_us = t.wall_us;
  p.gpu_busy_pct = t.wall_us > 0 ? 100.0 * p.kernel_us / t.wall_us : 0;
  return p;
}

std::string format_profile(const Profile& p) {
  TextTable k({"kernel", "category", "total µs", "share %", "calls", "avg µs", "GB/s", "regs", "spill B", "occ %",
               "launch"});
  for (const auto& r : p.kernels)
    k.add_row({r.name, r.category, cell(r.total_us, 1), cell(r.share_pct, 1), std::to_string(r.calls),
               cell(r.avg_us, 2), r.gbs > 0 ? cell(r.gbs, 0) : "-", r.registers < 0 ? "-" : std::to_string(r.registers),
               std::to_string(r.spill_bytes), r.occupancy < 0 ? "-" : cell(100 * r.occupancy, 0), r.shape});
  TextTable c({"category", "total µs", "share %", "kernels", "calls"});
  for (const auto& r : p.categories)
    c.add_row({r.category, cell(r.total_us, 1), cell(r.share_pct, 1), std::to_string(r.kernels),
               std::to_string(r.calls)});
  std::string out = k.terminal() + "\n" + c.terminal() + "\n";
  if (p.wall_us > 0)
    out += fmt::format("GPU busy: {:.1f}% ({:.1f} µs of kernels in {:.1f} µs wall)\n", p.gpu_busy_pct, p.kernel_us,
                       p.wall_us);
  else
    out += fmt::format("GPU busy: unknown (no wall time); {:.1f} µs of kernels\n", p.kernel_us);
  return out;
}

}  // namespace solder::bench
