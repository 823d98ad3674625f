#include "pipeline/pipeline.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "passes/canonical_order.h"
#include "passes/cat_pieces.h"
#include "passes/keep_reduced_dims.h"
#include "passes/math_before_reshapes.h"
#include "passes/narrow_unary_math.h"
#include "passes/normalize_math.h"
#include "passes/passes.h"
#include "passes/recognize_var_mean.h"
#include "passes/small_matmuls.h"
#include "passes/sort_commutative.h"
#include "passes/split_gapped_reductions.h"
#include "passes/views_before_casts.h"
#include "passes/widen_low_precision.h"

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
  // The passes up to canonical_node_order make programs that mean the same thing one graph
  // (issue 27: "canonical graphs"), so they compile to the same kernels.
  // f64 matmuls as reductions first: their products and sums then meet every pass below as
  // written ones do.
  Fusion f = run_pass("small_matmuls", input, small_matmuls_as_reductions);
  // Views of inputs move above casts next: a cast round trip split by a view
  // (cast(transpose(cast(x)))) then meets fold_casts whole.
  f = run_pass("views_before_casts", f, views_before_casts);
  // fold_casts early: it exposes identical nodes (two upcasts of one value) to CSE.
  f = run_pass("fold_casts", f, fold_casts);
  // Before widening: pow(x, 2) -> x * x must still see f16 math as f16 to widen it next.
  f = run_pass("normalize_math", f, normalize_math);
  // Unary math on f16/bf16 in the 16-bit form; after fold_casts, which may expose
  // cast(u(cast(x))) (widening below leaves unary ops be).
  f = run_pass("narrow_unary_math", f, narrow_unary_math);
  // f16/bf16 arithmetic in the explicit f32 form, before anything matches f32 patterns.
  f = run_pass("widen_low_precision", f, widen_low_precision);
  // After widening (the pieces' casts are explicit), before CSE (pads of one leaf merge).
  f = run_pass("cat_pieces_in_kernels", f, cat_pieces_in_kernels);
  // Before CSE, so a + b and b + a become one node.
  f = run_pass("sort_commutative", f, sort_commutative_operands);
  // CSE before recognizing statistics: (x - m) * (x - m) written twice must be one operand.
  f = run_pass("cse", f, eliminate_common_subexpressions);
  f = run_pass("recognize_var_mean", f, recognize_var_mean);
  // After recognizing var_mean (a hand-written variance splits as one), before CSE (the
  // constants it adds merge).
  f = run_pass("split_gapped_reductions", f, split_gapped_reductions);
  // Again: nodes that read a mean recognize_var_mean merged may now be identical (x - m
  // written once against mean(x) and once against var_mean(x)'s mean).
  f = run_pass("cse", f, eliminate_common_subexpressions);
  // CSE before DCE: merging may orphan nodes that DCE then removes.
  f = run_pass("dce", f, eliminate_dead_code);
  // After CSE (one reduction per result): its scalar epilogue then joins its kernel.
  f = run_pass("keep_reduced_dims", f, keep_reduced_dims);
  // After it (a reduction's dims kept, its math at the kept shape): element math on a reshape
  // of a computed value moves before the reshape, into the value's kernel.
  f = run_pass("math_before_reshapes", f, math_before_reshapes);
  // Last: segmentation places nodes in order; every pass above keeps the order it was given.
  f = run_pass("canonical_node_order", f, canonical_node_order);
  SegmentedFusion s = segment_fusion(std::move(f));
  if (debug()) std::fprintf(stderr, "solder: segments\n%s", describe_segments(s).c_str());
  return s;
}

}  // namespace solder
