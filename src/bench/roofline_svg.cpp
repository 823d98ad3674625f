#include "bench/roofline_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace solder::bench {
namespace {

constexpr double kCharW = 6.2;  // average advance of an 11 px sans-serif glyph
constexpr double kSlot = 34, kMinPlotWidth = 480, kTop = 58, kRight = 30;
constexpr double kCos45 = 0.7071;

constexpr const char* kStyle = R"(<style>
text { font-family: sans-serif; font-size: 11px; fill: #222; }
.title { font-size: 14px; font-weight: bold; }
.pct { font-size: 9px; fill: #2b6cb0; }
.axis { stroke: #222; stroke-width: 1; }
.grid { stroke: #ddd; stroke-width: 1; }
.solder { fill: #2b6cb0; }
.copy { stroke: #e07b00; stroke-width: 2.5; fill: none; }
.ceiling { stroke: #c53030; stroke-width: 1.5; stroke-dasharray: 6 4; }
.eager { fill: #fff; stroke: #555; stroke-width: 1.5; }
.compile { fill: #38a169; stroke: #1c5a34; stroke-width: 1; }
</style>
)";

std::string num(double v) { return fmt::format("{:.1f}", v); }

std::optional<double> peer_gbs(const BenchRecord& r, const std::optional<double>& us) {
  if (!us || *us <= 0) return std::nullopt;
  return static_cast<double>(r.bytes) / (*us * 1e3);
}

double nice_step(double max) {
  double raw = max / 5;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

// The prefix every name shares, cut after its last '/' or '_' so labels start on a word.
std::string shared_prefix(const std::vector<BenchRecord>& recs) {
  if (recs.size() < 2) return "";
  std::string p = recs[0].name;
  for (const auto& r : recs) {
    size_t n = 0;
    while (n < p.size() && n < r.name.size() && p[n] == r.name[n]) ++n;
    p.resize(n);
  }
  size_t cut = p.find_last_of("/_");
  if (cut == std::string::npos) return "";
  p.resize(cut + 1);
  for (const auto& r : recs)
    if (r.name.size() == p.size()) return "";  // a name would become empty
  return p;
}

// Margins and the plot rectangle, derived from label lengths and the case count.
struct Layout {
  double left = 70, bottom = 50, width = 0, height = 0, plot_w = 0, plot_h = 0;
  double ymax = 1;
  double y(double gbs) const { return kTop + plot_h * (1 - std::clamp(gbs / ymax, 0.0, 1.0)); }
  double base() const { return kTop + plot_h; }
  double right_edge() const { return left + plot_w; }
};

struct Legend {
  std::vector<std::pair<std::string, std::string>> items;  // mark svg (at x=0, y=0), label
  double width() const {
    double w = 0;
    for (const auto& it : items) w += 30 + kCharW * static_cast<double>(it.second.size());
    return w;
  }
};

std::string diamond(double cx, double cy, double r) {
  return fmt::format("<path class=\"compile\" d=\"M{} {} L{} {} L{} {} L{} {} Z\"", num(cx), num(cy - r), num(cx + r),
                     num(cy), num(cx), num(cy + r), num(cx - r), num(cy));
}

Legend make_legend(bool peers) {
  Legend l;
  l.items.push_back({"<rect x=\"0\" y=\"-5\" width=\"10\" height=\"10\" class=\"solder\"/>", "Solder"});
  l.items.push_back({"<line x1=\"-1\" y1=\"0\" x2=\"11\" y2=\"0\" class=\"copy\"/>", "copy of the same bytes"});
  l.items.push_back({"<line x1=\"-1\" y1=\"0\" x2=\"11\" y2=\"0\" class=\"ceiling\"/>", "large-copy ceiling"});
  if (peers) {
    l.items.push_back({"<circle cx=\"5\" cy=\"0\" r=\"4\" class=\"eager\"/>", "torch eager"});
    l.items.push_back({diamond(5, 0, 5) + "/>", "torch.compile"});
  }
  return l;
}

std::string draw_legend(const Legend& l, double x, double y) {
  std::string s = fmt::format("<g transform=\"translate({} {})\">\n", num(x), num(y));
  double at = 0;
  for (const auto& [mark, label] : l.items) {
    s += fmt::format("<g transform=\"translate({} 0)\">{}<text x=\"16\" y=\"4\">{}</text></g>\n", num(at), mark, label);
    at += 30 + kCharW * static_cast<double>(label.size());
  }
  return s + "</g>\n";
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string roofline_svg(const BenchReport& r, const RooflineOptions& opts) {
  const auto& recs = r.records;
  const bool by_case = opts.x == RooflineX::by_case;
  bool peers = std::any_of(recs.begin(), recs.end(), [](const BenchRecord& x) { return x.eager_us || x.compile_us; });
  std::string prefix = shared_prefix(recs);
  std::vector<std::string> labels;
  size_t longest = 0;
  for (const auto& x : recs) {
    labels.push_back(x.name.substr(prefix.size()));
    longest = std::max(longest, labels.back().size());
  }

  Layout L;
  for (const auto& x : recs) {
    L.ymax = std::max({L.ymax, x.gbs, x.copy_gbs});
    for (auto p : {peer_gbs(x, x.eager_us), peer_gbs(x, x.compile_us)})
      if (p) L.ymax = std::max(L.ymax, *p);
  }
  L.ymax = std::max(L.ymax, r.ceiling_gbs);
  double step = nice_step(L.ymax * 1.05);
  L.ymax = std::ceil(L.ymax * 1.05 / step) * step;
  double label_px = kCharW * static_cast<double>(longest) * kCos45;  // rotated labels' reach
  if (by_case) {
    L.bottom = 24 + label_px + (prefix.empty() ? 0 : 22);
    L.left = std::max(70.0, label_px - kSlot / 2 + 12);
  }
  Legend legend = make_legend(peers);
  L.plot_w = std::max({kMinPlotWidth, kSlot * static_cast<double>(recs.size()), legend.width()});
  L.plot_h = std::max(opts.plot_height, 120);
  L.width = L.left + L.plot_w + kRight;
  L.height = kTop + L.plot_h + L.bottom;

  std::string title = opts.title.empty()
                          ? "Solder vs same-bytes copy — " + (r.device.empty() ? "unknown device" : r.device)
                          : opts.title;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n",
      num(L.width), num(L.height));
  s += kStyle;
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  s += fmt::format("<text class=\"title\" x=\"{}\" y=\"20\">{}</text>\n", num(L.left), xml_escape(title));
  s += draw_legend(legend, L.left, 42);

  // Y axis: gridlines every `step` GB/s.
  for (double v = 0; v <= L.ymax + step / 2; v += step) {
    double yy = L.y(v);
    s += fmt::format("<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(L.left), num(yy),
                     num(L.right_edge()), num(yy));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.0f}</text>\n", num(L.left - 6), num(yy + 4), v);
  }
  double mid = kTop + L.plot_h / 2;
  s += fmt::format("<text x=\"{0}\" y=\"{1}\" transform=\"rotate(-90 {0} {1})\" text-anchor=\"middle\">GB/s</text>\n",
                   num(L.left - 48), num(mid));
  s += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", num(L.left), num(kTop),
                   num(L.base()));
  s += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", num(L.left), num(L.base()),
                   num(L.right_edge()));

  // X positions: one slot per case, or log10(bytes) across the plot width.
  std::vector<double> xs(recs.size());
  double slot = L.plot_w / std::max<double>(1, static_cast<double>(recs.size()));
  auto log_bytes = [](const BenchRecord& x) { return std::log10(std::max<double>(static_cast<double>(x.bytes), 1)); };
  if (by_case) {
    for (size_t i = 0; i < recs.size(); ++i) xs[i] = L.left + slot * (static_cast<double>(i) + 0.5);
  } else {
    double lo = 1e300, hi = 0;
    for (const auto& x : recs) {
      lo = std::min(lo, log_bytes(x));
      hi = std::max(hi, log_bytes(x));
    }
    lo = recs.empty() ? 0 : std::floor(lo);
    hi = std::max(std::ceil(hi), lo + 1);
    for (size_t i = 0; i < recs.size(); ++i) xs[i] = L.left + L.plot_w * (log_bytes(recs[i]) - lo) / (hi - lo);
    for (double d = lo; d <= hi; d += 1)
      s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">1e{:.0f} B</text>\n",
                       num(L.left + L.plot_w * (d - lo) / (hi - lo)), num(L.base() + 16), d);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">bytes moved (log)</text>\n",
                     num(L.left + L.plot_w / 2), num(L.base() + 36));
  }
  double half = std::min(kSlot, slot) * 0.35;

  // The same-bytes copy: a tick over each bar, or a line through the copies sorted by bytes.
  if (!by_case && !recs.empty()) {
    std::vector<size_t> order(recs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return recs[a].bytes < recs[b].bytes; });
    s += "<polyline class=\"copy\" points=\"";
    for (size_t i : order) s += num(xs[i]) + "," + num(L.y(recs[i].copy_gbs)) + " ";
    s += "\"/>\n";
  }
  for (size_t i = 0; i < recs.size(); ++i) {
    const BenchRecord& x = recs[i];
    std::string tip = xml_escape(fmt::format("{}: {:.0f} GB/s, {:.1f}% of same-bytes copy ({:.0f} GB/s), {:.1f} µs",
                                             x.name, x.gbs, x.pct_of_copy, x.copy_gbs, x.time.median));
    if (by_case) {
      s += fmt::format("<rect class=\"solder\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>\n",
                       num(xs[i] - half), num(L.y(x.gbs)), num(2 * half), num(L.base() - L.y(x.gbs)), tip);
      s += fmt::format("<line class=\"copy\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>\n", num(xs[i] - half - 3),
                       num(xs[i] + half + 3), num(L.y(x.copy_gbs)));
      if (slot >= 26 && x.copy_gbs > 0)
        s += fmt::format("<text class=\"pct\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{:.0f}%</text>\n", num(xs[i]),
                         num(std::min(L.y(x.gbs), L.y(x.copy_gbs)) - 5), x.pct_of_copy);
      double ly = L.base() + 12;
      s += fmt::format("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" transform=\"rotate(-45 {0} {1})\">{2}</text>\n",
                       num(xs[i]), num(ly), xml_escape(labels[i]));
    } else {
      s += fmt::format("<circle class=\"solder\" cx=\"{}\" cy=\"{}\" r=\"4.5\"><title>{}</title></circle>\n",
                       num(xs[i]), num(L.y(x.gbs)), tip);
    }
    if (auto e = peer_gbs(x, x.eager_us))
      s += fmt::format(
          "<circle class=\"eager\" cx=\"{}\" cy=\"{}\" r=\"4\"><title>torch eager: {:.0f} GB/s</title></circle>\n",
          num(xs[i]), num(L.y(*e)), *e);
    if (auto c = peer_gbs(x, x.compile_us))
      s += diamond(xs[i], L.y(*c), 5) + fmt::format("><title>torch.compile: {:.0f} GB/s</title></path>\n", *c);
  }
  if (by_case && !prefix.empty())
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">cases: {}…</text>\n", num(L.left + L.plot_w / 2),
                     num(L.height - 8), xml_escape(prefix));

  if (r.ceiling_gbs > 0) {
    double yy = L.y(r.ceiling_gbs);
    s += fmt::format("<line class=\"ceiling\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", num(L.left), num(yy),
                     num(L.right_edge()), num(yy));
    // Labelled at the left: sweeps usually grow to the right, where bars approach the ceiling.
    s += fmt::format("<text x=\"{}\" y=\"{}\">large-copy ceiling {:.0f} GB/s</text>\n", num(L.left + 4),
                     num(yy - 5), r.ceiling_gbs);
  }
  s += "</svg>\n";
  return s;
}

}  // namespace solder::bench
