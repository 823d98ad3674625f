#pragma once
// A hand-written SVG picture of a BenchReport: achieved GB/s per case (bars, or points on a
// log-bytes axis) against the copy of the same bytes (the roofline each case can reach) and
// the large-copy ceiling, with torch eager / torch.compile as markers when present. Every
// solder mark carries class="solder" and a <title> tooltip; no dependencies. Case labels drop
// the prefix all cases share (shown once under the axis) so they stay short.
#include <string>

#include "bench/record.h"

namespace solder::bench {

enum class RooflineX { by_case, by_bytes };

struct RooflineOptions {
  RooflineX x = RooflineX::by_case;
  int plot_height = 320;  // px of the plot area; margins grow with the labels, width with the cases
  std::string title;  // default: "Solder vs same-bytes copy — <device>"
};

std::string roofline_svg(const BenchReport& r, const RooflineOptions& opts = {});

// XML text escaping (&, <, >, ") for labels and tooltips.
std::string xml_escape(const std::string& s);

}  // namespace solder::bench
