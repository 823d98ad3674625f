#include <gtest/gtest.h>

#include "bench/roofline_svg.h"

using namespace solder::bench;

namespace {

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

BenchReport report(bool peers) {
  BenchReport r;
  r.device = "H100 <test>";
  r.ceiling_gbs = 2967;
  for (int i = 0; i < 5; ++i) {
    BenchRecord x;
    x.name = "w1/H=" + std::to_string(768 << i);
    x.bytes = 2ull * 8192 * (768u << i) * 2;
    x.time.median = static_cast<double>(x.bytes) / 2.5e6;  // 2500 GB/s
    x.copy_gbs = 2700;
    if (peers && i % 2 == 0) {
      x.eager_us = x.time.median * 3;
      x.compile_us = x.time.median * 1.4;
    }
    derive_bandwidth(x, r.ceiling_gbs);
    r.records.push_back(x);
  }
  return r;
}

void expect_well_formed(const std::string& svg) {
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count(svg, "<svg"), 1u);
  EXPECT_NE(svg.find("</svg>\n"), std::string::npos);
  EXPECT_EQ(svg.find("<test>"), std::string::npos);  // labels are escaped
  // Every element opened with <x ...> is closed or self-closing: tags balance.
  size_t opens = 0, closes = 0, selfclose = count(svg, "/>");
  for (size_t p = svg.find('<'); p != std::string::npos; p = svg.find('<', p + 1))
    (svg[p + 1] == '/' ? closes : opens)++;
  EXPECT_EQ(opens, closes + selfclose);
}

}  // namespace

TEST(RooflineSvg, OneBarPerCase) {
  std::string svg = roofline_svg(report(false));
  expect_well_formed(svg);
  EXPECT_EQ(count(svg, "class=\"solder\" x="), 5u);  // bars (the legend swatch has y first)
  EXPECT_EQ(count(svg, "<line class=\"copy\""), 5u);
  EXPECT_EQ(count(svg, "<line class=\"ceiling\""), 1u);
  EXPECT_EQ(count(svg, "class=\"eager\" cx"), 0u);
  EXPECT_NE(svg.find("w1/H=12288"), std::string::npos);
}

TEST(RooflineSvg, PeersAndLogBytesAxis) {
  std::string svg = roofline_svg(report(true), {.x = RooflineX::by_bytes});
  expect_well_formed(svg);
  EXPECT_EQ(count(svg, "<circle class=\"solder\""), 5u);
  EXPECT_EQ(count(svg, "<circle class=\"eager\""), 3u);
  EXPECT_EQ(count(svg, "<path class=\"compile\""), 3u + 1u);  // + legend
  EXPECT_EQ(count(svg, "<polyline class=\"copy\""), 1u);
  EXPECT_NE(svg.find("bytes moved (log)"), std::string::npos);
}

TEST(RooflineSvg, EmptyReportStillDraws) {
  BenchReport r;
  std::string svg = roofline_svg(r);
  expect_well_formed(svg);
  EXPECT_EQ(count(svg, "class=\"solder\" x="), 0u);
}

TEST(RooflineSvg, XmlEscape) { EXPECT_EQ(xml_escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;"); }
