#include "frontend/explain.h"

#include <algorithm>

#include "ir/printer.h"
#include "pipeline/pipeline.h"
#include "solder/executor.h"

namespace solder {

namespace {

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string concrete(const Shape& s, const Bindings& b) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i].eval(b));
  return r + "]";
}

std::string value_table(const Fusion& f, const ExplainOptions& opts) {
  struct Row {
    std::string name, dtype, shape, sizes, origin;
  };
  std::vector<Row> rows{{"value", "dtype", "shape", opts.sizes ? "sizes" : "", "defined by"}};
  for (const Value& v : f.values()) {
    std::string origin = v.producer < 0 ? "input" : op_name(f.nodes()[v.producer].op);
    int id = static_cast<int>(&v - f.values().data());
    if (std::find(f.outputs().begin(), f.outputs().end(), id) != f.outputs().end()) origin += ", output";
    rows.push_back({v.name, std::string(dtype_name(v.dtype)), shape_str(v.shape),
                    opts.sizes ? concrete(v.shape, *opts.sizes) : "", origin});
  }
  size_t w[4] = {0, 0, 0, 0};
  for (const auto& r : rows) {
    w[0] = std::max(w[0], r.name.size());
    w[1] = std::max(w[1], r.dtype.size());
    w[2] = std::max(w[2], r.shape.size());
    w[3] = std::max(w[3], r.sizes.size());
  }
  std::string out;
  for (const auto& r : rows) {
    out += "  " + pad(r.name, w[0] + 2) + pad(r.dtype, w[1] + 2) + pad(r.shape, w[2] + 2);
    if (opts.sizes) out += pad(r.sizes, w[3] + 2);
    out += r.origin + "\n";
  }
  return out;
}

std::string bindings_line(const Bindings& b) {
  std::string s;
  for (const auto& [sym, v] : b) s += (s.empty() ? "" : ", ") + sym + "=" + std::to_string(v);
  return s.empty() ? "(no size symbols)" : s;
}

// Segments, and for bound sizes the steps a run takes (contiguous inputs).
std::string explain_plan(const Fusion& f, const ExplainOptions& opts) {
  Executor ex(f, ExecutorOptions{opts.plan, opts.contiguous_outputs});
  if (!opts.sizes) return "== segments (bind sizes with --shape/--size to see kernel plans)\n" + describe_segments(lower(f));
  std::vector<std::vector<int64_t>> shapes;
  for (int id : f.inputs()) shapes.push_back(eval_shape(f.value(id).shape, *opts.sizes));
  return "== plan\n" + ex.explain(shapes);
}

}  // namespace

std::string explain_fusion(const Fusion& f, const ExplainOptions& opts) {
  verify(f);
  std::string out = "== program (" + std::to_string(f.nodes().size()) + " nodes, " +
                    std::to_string(f.values().size()) + " values)\n" + print_fusion(f);
  if (opts.sizes) out += "\n== sizes\n  " + bindings_line(*opts.sizes) + "\n";
  out += "\n== values\n" + value_table(f, opts);
  // What the passes made of it (canonical graphs, src/pipeline/pipeline.cpp), where that differs:
  // two programs that print the same here compile to the same kernels.
  const Fusion lowered = lower(f).fusion;
  if (lowered.hash() != f.hash())
    out += "\n== after passes (" + std::to_string(lowered.nodes().size()) + " nodes)\n" + print_fusion(lowered);
  std::string plan = explain_plan(f, opts);
  if (!plan.empty()) out += "\n" + plan;
  return out;
}

}  // namespace solder
