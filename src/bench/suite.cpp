#include "bench/suite.h"

#include <algorithm>

#include "ops/workloads.h"
#include "solder/error.h"

namespace solder::bench {

namespace {
std::string label(const std::string& workload, const Bindings& b) {
  if (b.empty()) return workload;
  std::string s = workload + "/";
  bool first = true;
  for (const auto& [k, v] : b) {
    s += (first ? "" : ",") + k + "=" + std::to_string(v);
    first = false;
  }
  return s;
}

void add(std::vector<BenchCase>& out, const std::string& w, Bindings b, bool host = false) {
  out.push_back({label(w, b), w, std::move(b), host});
}
void add_program(std::vector<BenchCase>& out, const std::string& stem, const std::string& program, Bindings b) {
  out.push_back({label(stem, b), program, std::move(b), false});
}

const std::vector<int64_t> kW1Hidden = {768, 1024, 1280, 1536, 1600, 2048, 2560, 4096, 5140, 12288, 16384, 20480};
}  // namespace

std::vector<std::string> suite_names() { return {"default", "quick", "norms"}; }

std::vector<BenchCase> suite_cases(const std::string& suite) {
  std::vector<BenchCase> c;
  if (suite == "default") {
    for (int64_t h : kW1Hidden) add(c, "w1_layer_norm_fused", {{"B", 8192}, {"H", h}});
    for (const auto& w : workload_names())
      if (w.rfind("w2_", 0) == 0)
        for (int64_t n : {int64_t{1} << 21, int64_t{1} << 27}) add(c, w, {{"N", n}});
    add(c, "w3_split_stack", {{"B", 1024}});
    add(c, "w3_combined", {{"B", 1024}});
    for (int i = 1; i <= 6; ++i) add(c, "w4_einsum_" + std::to_string(i), {}, true);
    add(c, "w5_softmax_bf16", {{"B", 8192}, {"H", 4096}});
    add(c, "w5_rms_norm_bf16", {{"B", 8192}, {"H", 4096}});
    add(c, "w5_gelu_bias_bf16", {{"B", 8192}, {"H", 8192}});
    return c;
  }
  if (suite == "quick") {
    add(c, "w1_layer_norm_fused", {{"B", 8192}, {"H", 5140}});
    add(c, "w2_fp8_bf16_e4m3_sat", {{"N", int64_t{1} << 24}});
    add(c, "w4_einsum_1", {}, true);
    add(c, "w5_gelu_bias_bf16", {{"B", 8192}, {"H", 8192}});
    return c;
  }
  if (suite == "norms") {
    std::vector<int64_t> hs = {768, 1024, 2048, 4096, 5140, 8192, 12288, 16384, 20480, 32768, 65536,
                               770, 772, 776, 784, 4098, 4100, 4104, 4112};
    for (int64_t b : {16, 512, 2048, 8192, 16384})
      for (int64_t h : hs) {
        if (b * h > (int64_t{1} << 28)) continue;  // keep each case under 512 MiB of fp16 input
        add(c, "w1_layer_norm_fused", {{"B", b}, {"H", h}});
      }
    for (const char* w : {"w1_layer_norm_fused_bf16", "w1_layer_norm_fused_f32"})
      for (int64_t h : hs)
        if (h <= 32768) add(c, w, {{"B", 8192}, {"H", h}});
    for (int64_t h : hs) {
      add(c, "w5_softmax_bf16", {{"B", 8192}, {"H", h}});
      add(c, "w5_rms_norm_bf16", {{"B", 8192}, {"H", h}});
    }
    return c;
  }
  throw Error("unknown bench suite '" + suite + "' (known: default, quick, norms)");
}

std::vector<BenchCase> sweep_cases(const std::vector<std::string>& programs, const std::vector<std::string>& axes) {
  std::vector<Bindings> combos = {{}};
  for (const auto& axis : axes) {
    size_t eq = axis.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == axis.size())
      throw Error("bad --size '" + axis + "': expected SYM=VALUE[,VALUE...], e.g. H=768,5140");
    std::vector<int64_t> values;
    std::string rest = axis.substr(eq + 1);
    for (size_t pos = 0; pos <= rest.size();) {
      size_t comma = std::min(rest.find(',', pos), rest.size());
      std::string item = rest.substr(pos, comma - pos);
      size_t used = 0;
      int64_t v = 0;
      try {
        v = std::stoll(item, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != item.size() || v < 1)
        throw Error("bad --size '" + axis + "': '" + item + "' is not a positive integer");
      values.push_back(v);
      pos = comma + 1;
    }
    std::vector<Bindings> next;
    for (const auto& b : combos)
      for (int64_t v : values) {
        Bindings nb = b;
        nb[axis.substr(0, eq)] = v;
        next.push_back(std::move(nb));
      }
    combos = std::move(next);
  }
  std::vector<BenchCase> out;
  for (const auto& p : programs) {
    std::string stem = p.substr(p.find_last_of('/') + 1);
    if (stem.size() > 7 && stem.ends_with(".fusion")) stem.resize(stem.size() - 7);
    for (const auto& b : combos) add_program(out, stem, p, b);
  }
  return out;
}

}  // namespace solder::bench
