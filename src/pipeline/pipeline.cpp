#include "pipeline/pipeline.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "passes/passes.h"

namespace solder {

namespace {
bool debug() {
  static const bool on = [] {
    const char* e = std::getenv("SOLDER_DEBUG");
    return e && *e && *e != '0';
  }();
  return on;
}

template <class Pass>
Fusion run_pass(const char* name, const Fusion& f, Pass pass) {
  auto t0 = std::chrono::steady_clock::now();
  Fusion out = pass(f);
  if (debug()) {
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "solder: after %s (%.3f ms): %zu nodes\n", name, ms, out.nodes().size());
  }
  return out;
}
}  // namespace

SegmentedFusion lower(const Fusion& input) {
  verify(input);
  // fold_casts first: it exposes identical nodes (two upcasts of one value) to CSE.
  Fusion f = run_pass("fold_casts", input, fold_casts);
  // CSE before DCE: merging may orphan nodes that DCE then removes.
  f = run_pass("cse", f, eliminate_common_subexpressions);
  f = run_pass("dce", f, eliminate_dead_code);
  SegmentedFusion s = segment_fusion(std::move(f));
  if (debug()) std::fprintf(stderr, "solder: segments\n%s", describe_segments(s).c_str());
  return s;
}

}  // namespace solder
