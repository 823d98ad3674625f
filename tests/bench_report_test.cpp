#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "bench/progress.h"
#include "bench/record.h"
#include "bench/report_format.h"
#include "bench/text_table.h"
#include "solder/error.h"

using namespace solder::bench;
using nlohmann::json;

namespace {

BenchRecord make_record(const std::string& name, double median_us, bool peers) {
  BenchRecord r;
  r.suite = "w1";
  r.name = name;
  r.shape = "8192x5140";
  r.dtype = "f16";
  r.bytes = 2ull * 8192 * 5140 * 2;
  r.time = summarize({median_us * 0.99, median_us, median_us * 1.02});
  r.time.stop = StopReason::converged;
  r.copy_gbs = 2900;
  r.host_us = 4.5;
  r.compile_ms = 42;
  r.kernels = 1;
  r.kernel_resources = {{"solder_norm_ln_0", 40, 0, "vec=8 threads=512 threads_per_row=512 persistent_batch=4 cluster=8"}};
  if (peers) {
    r.graph_host_us = 2.1;
    r.eager_us = median_us * 3;
    r.compile_us = median_us * 1.5;
  }
  derive_bandwidth(r, 3000);
  return r;
}

BenchReport make_report() {
  BenchReport rep;
  rep.device = "NVIDIA H100 80GB HBM3";
  rep.date = "2025-01-01T00:00:00Z";
  rep.ceiling_gbs = 3000;
  rep.records = {make_record("w1/H=5140", 60, true), make_record("w1/H=768, odd \"quoted\"", 10, false)};
  return rep;
}

}  // namespace

TEST(BenchReport, DeriveBandwidth) {
  BenchRecord r = make_record("a", 100, false);
  EXPECT_NEAR(r.gbs, r.bytes / 100e3, 1e-9);
  EXPECT_NEAR(r.pct_of_copy, 100 * r.gbs / 2900, 1e-9);
  EXPECT_NEAR(r.pct_of_peak, 100 * r.gbs / 3000, 1e-9);
}

TEST(BenchReport, JsonRoundTrip) {
  BenchReport rep = make_report();
  json j = rep;
  BenchReport back = json::parse(j.dump()).get<BenchReport>();
  EXPECT_EQ(json(back), j);
  ASSERT_EQ(back.records.size(), 2u);
  EXPECT_EQ(back.records[0].time.stop, StopReason::converged);
  EXPECT_EQ(back.records[0].eager_us, rep.records[0].eager_us);
  EXPECT_FALSE(back.records[1].eager_us.has_value());
  EXPECT_TRUE(j["records"][1]["eager_us"].is_null());
  EXPECT_EQ(back.records[0].graph_host_us, 2.1);
  EXPECT_FALSE(back.records[1].graph_host_us.has_value());
  EXPECT_NEAR(*back.records[0].vs_eager(), 3.0, 1e-12);
}

TEST(BenchReport, FileRoundTripAndErrors) {
  auto path = (std::filesystem::temp_directory_path() / "solder_bench_report_test.json").string();
  save_report(path, make_report());
  EXPECT_EQ(json(load_report(path)), json(make_report()));
  std::filesystem::remove(path);
  EXPECT_THROW(load_report(path), solder::Error);
}

TEST(BenchReport, MissingFieldsReadAsAbsent) {
  BenchRecord r = json::parse(R"({"name": "x"})").get<BenchRecord>();
  EXPECT_EQ(r.name, "x");
  EXPECT_FALSE(r.host_us.has_value());
  EXPECT_EQ(r.time.n, 0u);
}

TEST(BenchReport, PeerTimesMerge) {
  BenchReport rep = make_report();
  json peers = {{"w1/H=768, odd \"quoted\"", {{"eager_us", 30.0}, {"compile_us", 20.0}}}, {"unknown", {}}};
  EXPECT_EQ(apply_peer_times(rep, peers), 1);
  EXPECT_EQ(rep.records[1].compile_us, 20.0);
  EXPECT_EQ(apply_peer_times(rep, json{{"error", "no torch"}}), 0);
}

TEST(BenchReport, CsvHeaderAndEscaping) {
  std::string csv = report_csv(make_report());
  std::istringstream in(csv);
  std::string header, row1, row2;
  std::getline(in, header);
  std::getline(in, row1);
  std::getline(in, row2);
  EXPECT_EQ(header.rfind("suite,name,shape,dtype,bytes,median_us", 0), 0u);
  EXPECT_NE(header.find(",pct_of_copy,"), std::string::npos);
  EXPECT_EQ(row2.rfind("w1,\"w1/H=768, odd \"\"quoted\"\"\",8192x5140", 0), 0u);
  // Missing peer times are empty fields, not zeros.
  EXPECT_NE(row2.find(",,,,,"), std::string::npos);
  EXPECT_EQ(csv_escape("plain"), "plain");
  EXPECT_EQ(csv_escape("a\nb"), "\"a\nb\"");
}

TEST(BenchReport, MarkdownShape) {
  std::string md = report_markdown(make_report());
  std::istringstream in(md);
  std::vector<std::string> table;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] == '|') table.push_back(line);
  ASSERT_EQ(table.size(), 4u);  // header, rule, two records
  auto pipes = [](const std::string& s) {
    size_t n = 0;
    for (size_t i = 0; i < s.size(); ++i) n += s[i] == '|' && (i == 0 || s[i - 1] != '\\');
    return n;
  };
  for (const auto& l : table) EXPECT_EQ(pipes(l), pipes(table[0])) << l;
  EXPECT_NE(table[1].find("---:"), std::string::npos);
  EXPECT_NE(table[0].find("×eager"), std::string::npos);
  EXPECT_NE(md.find("3000 GB/s"), std::string::npos);
}

TEST(BenchReport, TerminalTableAlignsAndDropsEmptyColumns) {
  BenchReport rep = make_report();
  for (auto& r : rep.records) r.eager_us = r.compile_us = std::nullopt;
  std::string t = report_terminal(rep);
  EXPECT_EQ(t.find("eager"), std::string::npos);
  EXPECT_NE(t.find("%copy"), std::string::npos);
  TextTable tt({"name", "v"});
  tt.add_row({"a", "1.5"});
  tt.add_row({"long-name", "100.25"});
  EXPECT_EQ(tt.terminal(), "name            v\n---------  ------\na             1.5\nlong-name  100.25\n");
}

TEST(BenchReport, ProgressBarRendersOnlyWhenEnabled) {
  EXPECT_EQ(ProgressBar::render(1, 4, "w1", "H=768", 8), "w1 [##......] 1/4 H=768");
  std::FILE* f = std::tmpfile();
  {
    ProgressBar off(3, "x", f, false);
    off.step("a");
  }
  EXPECT_EQ(std::ftell(f), 0);
  {
    ProgressBar on(3, "x", f, true);
    on.step("a");
  }
  EXPECT_GT(std::ftell(f), 0);
  std::fclose(f);
}
