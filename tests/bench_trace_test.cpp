#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/trace.h"

using namespace solder::bench;
using nlohmann::json;

namespace {

Timeline sample_timeline() {
  Timeline t;
  t.wall_us = 100;
  KernelInterval k;
  k.name = "solder_norm_layer_norm_0";
  k.start_us = 10;
  k.dur_us = 40;
  k.shape.grid = {264, 1, 1};
  k.shape.block = {256, 1, 1};
  k.registers = 48;
  k.occupancy = 0.75;
  k.bytes = 80'000'000;
  t.kernels.push_back(k);
  k.name = "solder_pw_gelu_1";
  k.start_us = 55;
  k.dur_us = 20;
  k.stream = 1;
  t.kernels.push_back(k);
  t.host.push_back({"launch solder_norm_layer_norm_0", 0, 4, 0});
  return t;
}

}  // namespace

TEST(BenchTrace, CompleteEventsWithArgs) {
  json j = chrome_trace(sample_timeline(), "w1");
  ASSERT_TRUE(j["traceEvents"].is_array());
  std::vector<json> complete, names;
  for (const auto& e : j["traceEvents"]) (e["ph"] == "X" ? complete : names).push_back(e);
  ASSERT_EQ(complete.size(), 3u);
  const json* norm = nullptr;
  for (const auto& e : complete)
    if (e["name"] == "solder_norm_layer_norm_0") norm = &e;
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ((*norm)["ts"], 10.0);
  EXPECT_EQ((*norm)["dur"], 40.0);
  EXPECT_EQ((*norm)["pid"], kTraceGpuPid);
  EXPECT_EQ((*norm)["cat"], "persistent");
  EXPECT_EQ((*norm)["args"]["grid"], json::array({264, 1, 1}));
  EXPECT_EQ((*norm)["args"]["registers"], 48);
  EXPECT_NEAR((*norm)["args"]["GB/s"].get<double>(), 2000.0, 1e-9);
  for (const auto& e : complete) {
    for (const char* key : {"name", "ts", "dur", "pid", "tid"}) EXPECT_TRUE(e.contains(key)) << key;
  }
  // Metadata: two processes, one host thread, two GPU streams.
  EXPECT_EQ(names.size(), 5u);
  for (const auto& e : names) EXPECT_EQ(e["ph"], "M");
}

TEST(BenchTrace, FileIsValidJson) {
  auto path = (std::filesystem::temp_directory_path() / "solder_trace_test.json").string();
  write_chrome_trace(path, sample_timeline());
  std::ifstream in(path);
  json j = json::parse(in);  // throws on malformed output
  EXPECT_EQ(j["traceEvents"].size(), 8u);
  std::filesystem::remove(path);
}

TEST(BenchTrace, EmptyTimelineStillLoads) {
  json j = chrome_trace(Timeline{});
  EXPECT_EQ(j["traceEvents"].size(), 2u);  // process names only
}
