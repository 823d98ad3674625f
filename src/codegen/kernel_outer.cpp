// Outer (column) reductions: the domain seen as [RR reduced rows, K kept columns], kept
// innermost (see outer_scheduler.cpp; the kernel order stays [kept | reduced], so p.R = K and
// p.C = RR). A block is TX threads along the kept columns, each owning VEC contiguous columns
// (16-byte coalesced loads: a warp reads TX x 16 contiguous bytes of a row), times TY threads
// along the rows. Each thread walks its rows (ty, ty + TY, ...) with UNROLL rows' loads in
// flight, accumulating VEC partials per reduction: exact for sum/mean/max/min, Welford for
// var_mean (one count per thread: all its columns see the same rows). The block combines its
// TY partials through shared memory in a fixed order, and thread row 0 runs the kept-level
// epilogue and stores.
// Grid form (grid_split, gridDim.y > 1, for tall inputs): the rows are split over gridDim.y
// blocks; each leaves its block total in scratch, and the last block of a kept tile (a counter
// per tile) combines the splits in a fixed order (split y by thread row y % TY, then the block
// combine), runs the epilogue and resets its counter: no memset between launches, and the
// same bits every run.
// Phase-shifted kept columns (col_vec=1, K not a multiple of VEC or inputs not vec-aligned: an
// odd innermost kept size such as 4097): a block's tile lies inside one outer kept index (tiles
// per index TPK), and every row of a column input loads the two aligned vectors that overlap
// the thread's VEC columns and shifts them by the row's phase (phase_shift), so the loads stay
// 16 bytes wide whatever the row's alignment; the last tile's partial vector loads whole too
// (its lanes past the run are never stored). A thread whose first or last row's vectors could
// reach outside an input's storage reads element by element instead.
#include <algorithm>

#include "codegen/kernel_writer.h"

namespace solder::codegen_detail {

namespace {

std::string st_cols_helper() {
  return "// A thread's columns of an output at p, s apart, of which the first n lie in the output:\n"
         "// vector stores of at most 16 bytes where they are whole, contiguous and aligned, else\n"
         "// column by column.\n"
         "template <class E, int V> __device__ __forceinline__ void st_cols(E* p, i64 s, const Vec<E, V>& v, int n) {\n"
         "  constexpr int G = sizeof(E) * V > 16 ? 16 / (int)sizeof(E) : V;  // elements per store\n"
         "  if (n >= V && s == 1 && (unsigned long long)p % (sizeof(E) * G) == 0) {\n"
         "#pragma unroll\n    for (int g = 0; g < V; g += G) {\n      Vec<E, G> part;\n"
         "#pragma unroll\n      for (int k = 0; k < G; ++k) part.e[k] = v.e[g + k];\n      st_vec<E, G>(p + g, part);\n    }\n"
         "  } else {\n#pragma unroll\n    for (int j = 0; j < V; ++j)\n      if (j < n) p[j * s] = v.e[j];\n  }\n}\n";
}

// One reduction step's accumulators: VEC values (`acc<i>`), or Welford means and squared
// deviations (`wm<i>`, `wq<i>`) beside the thread's shared count `wn`.
struct Acc {
  const ReductionStep* st;
  int i;
  DType t;  // accumulator dtype (Welford: f32)
  bool welford() const { return st->welford; }
  std::string ct() const { return compute_type(t); }
  std::string a() const { return "acc" + num(i); }
  std::string m() const { return "wm" + num(i); }
  std::string q() const { return "wq" + num(i); }
  // Planes of partials in scratch and in shared memory (one value per column each).
  std::vector<std::pair<std::string, std::string>> planes() const {  // (array, type)
    if (welford()) return {{m(), "float"}, {q(), "float"}};
    return {{a(), ct()}};
  }
};


Op partial_op(const ReductionStep& st) { return st.kind == Op::Max || st.kind == Op::Min ? st.kind : Op::Sum; }
int plane_bytes(const std::string& type) { return type == "double" || type == "i64" ? 8 : 4; }

// The template's state (the reductions' accumulators, the inputs the rows read, the grid
// form's partial planes) and one method per part of the kernel, in the order write() emits.
class OuterWriter {
 public:
  OuterWriter(Writer& w, KernelSource& out) : w_(w), P_(w.plan.params), c_(w.code) {
    const StagePlan& sp = w.sp;  // not persistent: var_mean is one Welford step
    if (sp.max_level > 1) throw Error("codegen: " + w.plan.name + ": an outer reduction of a reduction result (not built)");
    for (size_t i = 0; i < sp.steps.size(); ++i) {
      const ReductionStep& st = sp.steps[i];
      const DType t = st.welford ? DType::F32 : accumulator_dtype(w.f.value(w.f.nodes()[st.node].out[0]).dtype);
      accs_.push_back({&st, static_cast<int>(i), t});
      any_welford_ |= st.welford;
    }
    // Grid-form partials: 8-byte planes first, so every plane stays aligned.
    for (int wide : {1, 0})
      for (const Acc& a : accs_)
        for (const auto& pl : a.planes())
          if ((plane_bytes(pl.second) == 8) == static_cast<bool>(wide)) gplanes_.push_back(pl);
    if (P_.grid_split)
      for (const auto& pl : gplanes_) out.scratch_per_cell += plane_bytes(pl.second);
    // The inputs the rows' element math reads.
    std::vector<int> targets;
    for (const auto& st : sp.steps) targets.push_back(st.input);
    ins_ = w.element_inputs(targets, [](int) { return false; });
  }

  void write() {
    c_ += outer_device_helpers(P_.kept_run);
    if (phased()) c_ += phase_shift_helper();
    c_ += st_cols_helper();
    prologue();
    row_loops();
    block_combine(1);
    if (P_.grid_split) grid_finish();
    epilogue();
  }

 private:
  bool is(int k, Access a) const { return w_.op(k).access == a; }
  bool phased() const { return P_.col_vec > 0; }
  // Column kc0 + j lies in the kept columns (phased: in this tile's outer kept index).
  std::string col_ok(const std::string& j) const { return phased() ? "kr + " + j + " < HK" : "kc0 + " + j + " < K"; }
  // Operand k's offset of this thread's column kc0 + j: VEC divides HK (the scheduler's vec),
  // so a thread's columns share one outer kept index (one division per thread).
  std::string kept_off(int k, const std::string& j) const {
    return "ka * sa" + num(k) + " + " + (is(k, Access::Full) ? "kr + " + j : "(kr + " + j + ") * si" + num(k));
  }

  // The kernel's head: this thread's columns and rows, the dim groups' strides, shared memory,
  // the accumulators and the inputs read once.
  void prologue() {
    const int ty_n = P_.rows_per_block, tx_n = P_.threads / P_.rows_per_block;
    const int rank = static_cast<int>(w_.ks.dim_order.size()), split = w_.ks.split;
    c_ += "extern \"C\" __global__ void " + w_.launch_bounds(P_.min_blocks) + " " + w_.plan.name + "(const Params p) {\n";
    c_ += "  constexpr int VEC = " + num(P_.vec) + ", TX = " + num(tx_n) + ", TY = " + num(ty_n) +
          ", UNROLL = " + num(P_.unroll) + ";\n";
    w_.pointers(1);
    c_ += "  const i64 K = p.R, RR = p.C;  // kept columns, reduced rows\n";
    c_ += "  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;\n";
    if (!phased()) c_ += "  const i64 kc0 = ((i64)blockIdx.x * TX + tx) * VEC;\n";
    // The dim groups, each collapsing linearly (the stride of its innermost dim of size > 1):
    // rows (rs), the outer kept dims (sa) and the inner run of kept dims (si: 1, or 0 where the
    // operand does not vary along them), split as the scheduler did (kept_split), from the first
    // column input. Column kc lies at (kc / HK) * sa + (kc % HK) * si.
    int first_full = -1;
    for (int k : ins_)
      if (is(k, Access::Full) && first_full < 0) first_full = k;
    if (first_full < 0) throw Error("codegen: " + w_.plan.name + ": an outer reduction without a column input");
    c_ += "  i64 HK;  // the inner kept run's size\n";
    c_ += P_.kept_run ? "  const int KI = outer_kept_split<" + num(static_cast<int>(w_.plan.operands.size())) + ", " + num(split) +
                            ">(p, " + num(first_full) + ", HK);\n"
                      : "  const int KI = outer_kept_split(p, " + num(first_full) + ", " + num(split) + ", HK);\n";
    for (int k = 0; k < static_cast<int>(w_.plan.operands.size()); ++k) {
      const std::string n = num(k);
      if (is(k, Access::Full) || is(k, Access::Row))
        c_ += "  const i64 rs" + n + " = outer_stride(p, " + n + ", " + num(split) + ", " + num(rank) + ");\n";
      if (is(k, Access::Full) || is(k, Access::Col)) c_ += "  const i64 sa" + n + " = outer_stride(p, " + n + ", 0, KI);\n";
      if (is(k, Access::Col)) c_ += "  const i64 si" + n + " = outer_stride(p, " + n + ", KI, " + num(split) + ");\n";
    }
    if (phased())  // tiles inside one outer kept index (see the head of this file)
      c_ += "  const i64 TPK = (HK + TX * VEC - 1) / (TX * VEC);  // tiles per outer kept index\n"
            "  const i64 ka = blockIdx.x / TPK, kr = (i64)(blockIdx.x % TPK) * (TX * VEC) + tx * VEC, kc0 = ka * HK + kr;\n";
    else  // one division per thread (see kept_off)
      c_ += "  const i64 ka = kc0 / HK, kr = kc0 % HK;\n";
    for (int k : ins_)
      if (is(k, Access::Full)) c_ += "  const i64 kb" + num(k) + " = ka * sa" + num(k) + " + kr;  // this thread's vector\n";
    if (P_.grid_split)
      c_ += "  const i64 rps = (RR + gridDim.y - 1) / gridDim.y;  // rows per split\n"
            "  const i64 rb = min(RR, (i64)blockIdx.y * rps), re = min(RR, rb + rps);\n";
    else
      c_ += "  const i64 rb = 0, re = RR;\n";
    if (phased()) {
      // The two aligned vectors of a row start at most VEC - 1 elements before the thread's first
      // column and end at most 2 VEC - 1 after it: inside [0, the last element's offset] of every
      // column input at the first and the last row (strides are not negative), so at every row.
      c_ += "  bool inside = true;  // every row's aligned vectors lie inside the inputs' storage\n";
      for (int k : ins_)
        if (is(k, Access::Full)) {
          const std::string n = num(k);
          c_ += "  {\n    i64 last = 0;\n    for (int d = 0; d < " + num(rank) + "; ++d) last += (p.dims[d] - 1) * p.stride[" + n +
                "][d];\n    inside = inside && rb * rs" + n + " + kb" + n + " >= VEC - 1 && (re - 1) * rs" + n + " + kb" + n +
                " + 2 * VEC <= last + 1;\n  }\n";
        }
    }
    // Shared memory for the block combine: the largest step's planes, [TY][VEC][TX] each
    // (consecutive threads of a row at consecutive words: no bank conflicts).
    int64_t smem = 16;
    for (const Acc& a : accs_) {
      int64_t bytes = 0;
      for (const auto& pl : a.planes()) bytes += int64_t{P_.threads} * P_.vec * plane_bytes(pl.second);
      smem = std::max(smem, bytes);
    }
    if (P_.rows_per_block > 1) {  // block_combine's staging
      c_ += "  __shared__ __align__(16) unsigned char osm[" + num(smem) + "];\n";
      if (any_welford_) c_ += "  __shared__ float osn[TY];\n";
    }
    if (any_welford_) c_ += "  float wn;\n";
    for (const Acc& a : accs_)
      c_ += a.welford() ? "  float " + a.m() + "[VEC], " + a.q() + "[VEC];\n" : "  " + a.ct() + " " + a.a() + "[VEC];\n";
    init_accs(1);
    // Kept-only inputs the rows read: this thread's VEC columns, once; scalars once.
    for (int k : ins_) {
      const std::string t = storage_type(w_.dt(w_.op(k).value));
      if (is(k, Access::Scalar)) c_ += "  const " + t + " hs" + num(k) + " = " + w_.ptr(k) + "[0];\n";
      if (is(k, Access::Col))
        c_ += "  " + t + " hc" + num(k) + "[VEC];\n#pragma unroll\n  for (int j = 0; j < VEC; ++j) hc" + num(k) +
              "[j] = " + col_ok("j") + " ? " + w_.ptr(k) + "[" + kept_off(k, "j") + "] : (" + t + ")0;\n";
    }
  }

  // Accumulators at the reductions' identities (Welford: empty).
  void init_accs(int ind) {
    c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
    for (const Acc& a : accs_)
      c_ += a.welford() ? I(ind + 1) + a.m() + "[j] = 0.f;\n" + I(ind + 1) + a.q() + "[j] = 0.f;\n"
                        : I(ind + 1) + a.a() + "[j] = " + red_identity(a.st->kind, a.t) + ";\n";
    c_ += I(ind) + "}\n";
    if (any_welford_) c_ += I(ind) + "wn = 0.f;\n";
  }

  // The thread's rows: whole vectors with UNROLL rows' loads in flight, then the rest in one step;
  // the last tile's partial vector element by element.
  void row_loops() {
    // Phased: whole and partial vectors alike from the two aligned vectors of each row (see the
    // head of this file); a thread near the storage's ends element by element.
    const bool ph = phased();
    c_ += ph ? "  if (inside && kr < HK) {\n    i64 r = rb + ty;\n" : "  if (kc0 + VEC <= K) {\n    i64 r = rb + ty;\n";
    row_steps(ph);
    c_ += ph ? "  } else if (kr < HK) {  // near the ends of an input's storage\n"
             : "  } else if (kc0 < K) {  // the last tile's partial vector\n";
    c_ += "    for (i64 r = rb + ty; r < re; r += TY) {\n      const int u = 0;\n";
    row_decls(3, "1");
    row_loads(3, "r", "0", false);
    row_math(3);
    c_ += "    }\n  }\n";
  }
  // The thread's rows from r on, as whole (`phased`: phase-shifted) vectors: UNROLL rows' loads
  // in flight, then the rest (fewer than UNROLL) in one step of their own.
  void row_steps(bool ph) {
    if (P_.unroll > 1) {
      c_ += "    for (; r + (i64)(UNROLL - 1) * TY < re; r += (i64)UNROLL * TY) {\n";
      unrolled_step(ph, "UNROLL", false, false);
      c_ += "    }\n";
    }
    // The last rows, fewer than UNROLL, in one step: their loads in flight together (one row at
    // a time waits out a load latency per row). Beside Welford's per-row reciprocal the loads
    // are unconditional, rows clamped to re - 1, and only the math skips rows past re: loads
    // under the skip spilled at unroll 4. At unroll 2 the rest is one row: Welford plans keep
    // the one-row loop below, where the clamped step was slower (perf-notes, seed 31 #080).
    if (P_.unroll > 2 || (P_.unroll > 1 && !any_welford_)) {
      c_ += any_welford_ ? "    if (r < re) {\n" : "    {\n";
      unrolled_step(ph, "UNROLL - 1", true, any_welford_);
      c_ += "    }\n";
      return;
    }
    c_ += "    for (; r < re; r += TY) {\n      const int u = 0;\n";
    row_decls(3, "1", ph);
    if (ph) {
      phased_loads(3, "r", "0");
      phase_shifts(3);
    } else {
      row_loads(3, "r", "0", true);
    }
    row_math(3);
    c_ += "    }\n";
  }
  // `n` rows from r (slot u: row r + u * TY), every row's loads first, then their math: n loads
  // in flight. `tail`: the rows from re on are skipped (`clamp`: their loads read row re - 1,
  // and only their math is skipped; r < re).
  void unrolled_step(bool ph, const std::string& n, bool tail, bool clamp) {
    const std::string skip = tail ? "        if (r + (i64)u * TY >= re) break;\n" : "";
    const std::string row = clamp ? "min(r + (i64)u * TY, re - 1)" : "r + (i64)u * TY";
    row_decls(3, n, ph);
    c_ += "#pragma unroll\n      for (int u = 0; u < " + n + "; ++u) {\n" + (clamp ? "" : skip);
    ph ? phased_loads(4, row, "u") : row_loads(4, row, "u", true);
    c_ += "      }\n#pragma unroll\n      for (int u = 0; u < " + n + "; ++u) {\n" + skip;
    if (ph) phase_shifts(4);
    row_math(4);
    c_ += "      }\n";
  }
  // Phase-shifted loads of row `r` into slot `u`: the aligned vector at or before the thread's
  // first column and the next one (in<k>, ih<k>), and the row's phase (ip<k>).
  void phased_loads(int ind, const std::string& r, const std::string& u) {
    for (int k : ins_) {
      const std::string t = storage_type(w_.dt(w_.op(k).value)), n = num(k);
      if (is(k, Access::Full)) {
        c_ += I(ind) + "{\n" + I(ind + 1) + "const " + t + "* a = " + w_.ptr(k) + " + (" + r + ") * rs" + n + " + kb" + n + ";\n";
        c_ += I(ind + 1) + "ip" + n + "[" + u + "] = (unsigned)((size_t)a / sizeof(" + t + ")) % VEC;\n";
        c_ += I(ind + 1) + "a -= ip" + n + "[" + u + "];\n";
        c_ += I(ind + 1) + "in" + n + "[" + u + "] = ld_vec<" + t + ", VEC>(a);\n";
        c_ += I(ind + 1) + "ih" + n + "[" + u + "] = ld_vec<" + t + ", VEC>(a + VEC);\n" + I(ind) + "}\n";
      }
      if (is(k, Access::Row)) c_ += I(ind) + "ir" + n + "[" + u + "] = (" + w_.ptr(k) + " + (" + r + ") * rs" + n + ")[0];\n";
    }
  }
  // Slot u's phase-shifted vectors into place: in<k>[u] holds the thread's VEC columns.
  void phase_shifts(int ind) {
    for (int k : ins_)
      if (is(k, Access::Full))
        c_ += I(ind) + "in" + num(k) + "[u] = phase_shift(in" + num(k) + "[u], ih" + num(k) + "[u], ip" + num(k) + "[u]);\n";
  }
  // Declarations of the loaded values of `n` rows.
  void row_decls(int ind, const std::string& n, bool ph = false) {
    for (int k : ins_) {
      const std::string t = storage_type(w_.dt(w_.op(k).value));
      if (is(k, Access::Full)) c_ += I(ind) + "Vec<" + t + ", VEC> in" + num(k) + "[" + n + "];\n";
      if (is(k, Access::Full) && ph)
        c_ += I(ind) + "Vec<" + t + ", VEC> ih" + num(k) + "[" + n + "];\n" + I(ind) + "unsigned ip" + num(k) + "[" + n + "];\n";
      if (is(k, Access::Row)) c_ += I(ind) + t + " ir" + num(k) + "[" + n + "];\n";
    }
  }
  // Loads of row `r` into slot `u`: whole vectors, or (`whole` false) the columns below K.
  void row_loads(int ind, const std::string& r, const std::string& u, bool whole) {
    for (int k : ins_) {
      const std::string t = storage_type(w_.dt(w_.op(k).value)), base = w_.ptr(k) + " + (" + r + ") * rs" + num(k);
      if (is(k, Access::Full) && whole)
        c_ += I(ind) + "in" + num(k) + "[" + u + "] = ld_vec<" + t + ", VEC>(" + base + " + kb" + num(k) + ");\n";
      else if (is(k, Access::Full))
        c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) in" + num(k) + "[" + u + "].e[j] = " + col_ok("j") + " ? (" +
              base + ")[kb" + num(k) + " + j] : (" + t + ")0;\n";
      if (is(k, Access::Row)) c_ += I(ind) + "ir" + num(k) + "[" + u + "] = (" + base + ")[0];\n";
    }
  }
  // One row's accumulation, from the loaded values in<k>[u] (rows' vectors) and ir<k>[u].
  void row_math(int ind) {
    // The hardware reciprocal of the count: the IEEE division's slow-path call kept ptxas from
    // issuing the unrolled rows' loads ahead of their math (as welford_add's __fdividef).
    if (any_welford_) c_ += I(ind) + "wn += 1.f;\n" + I(ind) + "const float winv = __fdividef(1.f, wn);\n";
    c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
    ExprEmitter em(w_.f, [&](int v) -> std::string {
      if (!w_.is_input(v)) return "";
      const int k = w_.operand_index.at(v);
      const DType t = w_.dt(v);
      switch (w_.op(k).access) {
        case Access::Full: return load_convert(t, "in" + num(k) + "[u].e[j]");
        case Access::Row: return load_convert(t, "ir" + num(k) + "[u]");
        case Access::Col: return load_convert(t, "hc" + num(k) + "[j]");
        default: return load_convert(t, "hs" + num(k));
      }
    });
    em.set_narrow_results(w_.narrow_results());
    for (const Acc& a : accs_) {
      const std::string x = em.value(a.st->input, c_, I(ind + 1));
      if (a.welford()) {
        const std::string d = "d" + num(a.i);
        c_ += I(ind + 1) + "const float " + d + " = (float)(" + x + ") - " + a.m() + "[j];\n";
        c_ += I(ind + 1) + a.m() + "[j] += " + d + " * winv;\n";
        c_ += I(ind + 1) + a.q() + "[j] += " + d + " * ((float)(" + x + ") - " + a.m() + "[j]);\n";
      } else {
        c_ += I(ind + 1) + a.a() + "[j] = " + combine(a.st->kind, a.a() + "[j]", "(" + a.ct() + ")(" + x + ")") + ";\n";
      }
    }
    c_ += I(ind) + "}\n";
  }

  // The block's TY partials of each column, combined in thread row 0 in row order.
  void block_combine(int ind) {
    if (P_.rows_per_block == 1) return;  // one thread row: nothing to combine
    c_ += I(ind) + "// Across the block's rows: thread row 0 combines rows 1 .. TY - 1 in order.\n";
    if (any_welford_) c_ += I(ind) + "if (tx == 0) osn[ty] = wn;\n";
    for (const Acc& a : accs_) {
      const auto planes = a.planes();
      std::vector<std::string> sm;
      int64_t at = 0;
      for (const auto& [arr, type] : planes) {
        sm.push_back("s" + arr);
        c_ += I(ind) + type + "* const s" + arr + " = (" + type + "*)(osm + " + num(at) + ");\n";
        at += int64_t{P_.threads} * P_.vec * plane_bytes(type);
      }
      c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
      for (size_t pl = 0; pl < planes.size(); ++pl)
        c_ += I(ind + 1) + sm[pl] + "[(ty * VEC + j) * TX + tx] = " + planes[pl].first + "[j];\n";
      c_ += I(ind) + "}\n" + I(ind) + "__syncthreads();\n" + I(ind) + "if (ty == 0) {\n";
      if (a.welford()) {
        // The rows' partials (n_t, mean_t, M2_t) in two passes, not a chain of Chan merges:
        // mean = sum n_t mean_t / N, then M2 = sum M2_t + n_t (mean_t - mean)^2. Deviations are
        // from the final mean (no cancellation, as Chan's) and there is no reciprocal per merge;
        // rows outer, columns inner, so a row's VEC columns are independent (a chain of TY merges
        // per column, one column after another, held thread row 0 for thousands of cycles at the
        // end of every block). Rows not unrolled: unrolled, their loads spilled under 64 registers.
        const std::string m = a.m(), q = a.q(), at = "[(t * VEC + j) * TX + tx]";
        c_ += I(ind + 1) + "float s" + num(a.i) + "[VEC], n = wn;\n";
        c_ += "#pragma unroll\n" + I(ind + 1) + "for (int j = 0; j < VEC; ++j) s" + num(a.i) + "[j] = wn * " + m + "[j];\n";
        c_ += "#pragma unroll 1\n" + I(ind + 1) + "for (int t = 1; t < TY; ++t) {\n" + I(ind + 2) + "const float nt = osn[t];\n" +
              I(ind + 2) + "n += nt;\n#pragma unroll\n" + I(ind + 2) + "for (int j = 0; j < VEC; ++j) s" + num(a.i) + "[j] += nt * " +
              sm[0] + at + ";\n" + I(ind + 1) + "}\n";
        c_ += "#pragma unroll\n" + I(ind + 1) + "for (int j = 0; j < VEC; ++j) {\n" + I(ind + 2) + "const float mean = n > 0.f ? s" +
              num(a.i) + "[j] / n : 0.f, d = " + m + "[j] - mean;\n" + I(ind + 2) + q + "[j] += wn * d * d;\n" + I(ind + 2) + m +
              "[j] = mean;\n" + I(ind + 1) + "}\n";
        c_ += "#pragma unroll 1\n" + I(ind + 1) + "for (int t = 1; t < TY; ++t) {\n" + I(ind + 2) + "const float nt = osn[t];\n" +
              "#pragma unroll\n" + I(ind + 2) + "for (int j = 0; j < VEC; ++j) {\n" + I(ind + 3) + "const float d = " + sm[0] + at +
              " - " + m + "[j];\n" + I(ind + 3) + q + "[j] += " + sm[1] + at + " + nt * d * d;\n" + I(ind + 2) + "}\n" + I(ind + 1) +
              "}\n";
        c_ += I(ind) + "}\n" + I(ind) + "__syncthreads();\n";
        continue;
      }
      c_ += "#pragma unroll\n" + I(ind + 1) + "for (int j = 0; j < VEC; ++j) {\n";
      c_ += I(ind + 2) + "for (int t = 1; t < TY; ++t) " + a.a() + "[j] = " +
            combine(partial_op(*a.st), a.a() + "[j]", sm[0] + "[(t * VEC + j) * TX + tx]") + ";\n";
      c_ += I(ind + 1) + "}\n" + I(ind) + "}\n" + I(ind) + "__syncthreads();\n";
    }
    if (any_welford_) c_ += I(ind) + "if (ty == 0)\n" + I(ind + 1) + "for (int t = 1; t < TY; ++t) wn += osn[t];\n";
  }

  // Grid form: the block's totals into its split's slots; the last block of the kept tile
  // combines the splits (split y in thread row y % TY, in split order, then across the rows)
  // and resets the tile's counter.
  void grid_finish() {
    c_ += "  if (gridDim.y > 1) {\n";
    c_ += "    // Grid form: this block's totals into its split's slots; the tile's last block combines.\n";
    c_ += "    const i64 cells = (i64)gridDim.y * K;\n";
    c_ += "    unsigned char* const sbase = (unsigned char*)p.scratch + (gridDim.x + 3) / 4 * 16;\n";
    int64_t off = 0;
    for (const auto& [arr, type] : gplanes_) {
      c_ += "    " + type + "* const g" + arr + " = (" + type + "*)(sbase + " + num(off) + " * cells);\n";
      off += plane_bytes(type);
    }
    c_ += "    if (ty == 0)\n#pragma unroll\n      for (int j = 0; j < VEC; ++j)\n        if (" + col_ok("j") + ") {\n";
    for (const auto& pl : gplanes_) c_ += "          g" + pl.first + "[(i64)blockIdx.y * K + kc0 + j] = " + pl.first + "[j];\n";
    c_ += "        }\n    __threadfence();\n    __syncthreads();\n    __shared__ bool olast;\n";
    c_ += "    if (threadIdx.x == 0) olast = atomicAdd((unsigned*)p.scratch + blockIdx.x, 1u) == gridDim.y - 1;\n";
    c_ += "    __syncthreads();\n    if (!olast) return;\n    __threadfence();\n";
    c_ += "    // The last block: split y in thread row y % TY, in split order, then across the rows.\n";
    init_accs(2);
    c_ += "    for (int y = ty; y < (int)gridDim.y; y += TY) {\n";
    if (any_welford_) c_ += "      const float ny = (float)(min(RR, (i64)(y + 1) * rps) - min(RR, (i64)y * rps));\n";
    c_ += "#pragma unroll\n      for (int j = 0; j < VEC; ++j)\n        if (" + col_ok("j") + ") {\n"
          "          const i64 at = (i64)y * K + kc0 + j;\n";
    for (const Acc& a : accs_) {
      if (a.welford()) {
        c_ += "          const Welford x = welford_merge({wn, " + a.m() + "[j], " + a.q() + "[j]}, {ny, __ldcg(g" + a.m() +
              " + at), __ldcg(g" + a.q() + " + at)});\n";
        c_ += "          " + a.m() + "[j] = x.mean;\n          " + a.q() + "[j] = x.m2;\n";
      } else {
        c_ += "          " + a.a() + "[j] = " + combine(partial_op(*a.st), a.a() + "[j]", "__ldcg(g" + a.a() + " + at)") + ";\n";
      }
    }
    c_ += "        }\n";
    if (any_welford_) c_ += "      wn += ny;\n";
    c_ += "    }\n";
    block_combine(2);
    c_ += "    if (threadIdx.x == 0) ((unsigned*)p.scratch)[blockIdx.x] = 0u;  // for the next launch\n  }\n";
  }

  // The kept-level epilogue, by thread row 0, column by column: the reductions' results (as
  // the inner template and the reference define them), the math on them, the stores.
  // Column outputs gather the thread's columns in chunks of at most 16 bytes of each output and
  // store each with st_cols (one vector where whole, contiguous and aligned): over few rows the
  // outputs are a large share of the bytes, and element stores 16 bytes apart took a store
  // instruction per column. Chunks, not all VEC at once: f32 outputs held whole took the
  // registers of var_mean's grid form (it spilled at unroll 4).
  void epilogue() {
    int g = P_.vec;
    for (int k : w_.output_slots())
      if (is(k, Access::Col)) g = std::min(g, std::max(1, 16 / dtype_size(w_.dt(w_.op(k).value))));
    c_ += "  if (ty != 0) return;\n  const int nv = (int)min((i64)VEC, " + std::string(phased() ? "HK - kr" : "K - kc0") + ");\n";
    c_ += "#pragma unroll\n  for (int g = 0; g < VEC; g += " + num(g) + ") {\n";
    for (int k : w_.output_slots())
      if (is(k, Access::Col)) c_ += "    Vec<" + std::string(storage_type(w_.dt(w_.op(k).value))) + ", " + num(g) + "> ov" + num(k) + ";\n";
    c_ += "#pragma unroll\n    for (int i = 0; i < " + num(g) + "; ++i) {\n    const int j = g + i;\n    const i64 col = kc0 + j;\n    if (j >= nv) break;\n";
    std::map<int, std::string> results;
    auto declare = [&](int v, const std::string& expr) {
      const std::string name = "r" + num(v);
      const DType t = w_.dt(v);
      c_ += "    const " + std::string(compute_type(t)) + " " + name + " = " + rounded(t, expr) + ";\n";
      results[v] = name;
    };
    for (const Acc& a : accs_) {
      const Node& n = w_.f.nodes()[a.st->node];
      if (a.welford()) {
        const std::string corr = num(n.attrs.correction);
        declare(n.out[0], a.q() + "[j] / (float)(RR - " + corr + " > 0 ? RR - " + corr + " : 0)");
        declare(n.out[1], a.m() + "[j]");
      } else if (a.st->kind == Op::Mean) {
        declare(n.out[0], a.a() + "[j] / (" + a.ct() + ")RR");
      } else {
        declare(n.out[0], a.a() + "[j]");
      }
    }
    ExprEmitter em(w_.f, [&](int v) -> std::string {
      if (auto it = results.find(v); it != results.end()) return it->second;
      if (!w_.is_input(v)) return "";
      const int k = w_.operand_index.at(v);
      return load_convert(w_.dt(v), w_.ptr(k) + "[" + (is(k, Access::Col) ? kept_off(k, "j") : "0") + "]");
    });
    em.set_narrow_results(w_.narrow_results());
    for (int k : w_.output_slots()) {
      const std::string val = w_.stored(em, k, I(2));
      if (is(k, Access::Col)) c_ += "    ov" + num(k) + ".e[i] = " + val + ";\n";
      else c_ += "    if (col == 0) " + w_.ptr(k) + "[0] = " + val + ";\n";
    }
    c_ += "    }\n";
    for (int k : w_.output_slots())
      if (is(k, Access::Col))
        c_ += "    st_cols(" + w_.ptr(k) + " + ka * sa" + num(k) + " + (kr + g) * si" + num(k) + ", si" + num(k) + ", ov" + num(k) +
              ", nv - g);\n";
    c_ += "  }\n}\n";
  }

  Writer& w_;
  const KernelParams& P_;
  std::string& c_;
  std::vector<Acc> accs_;
  bool any_welford_ = false;
  std::vector<int> ins_;
  std::vector<std::pair<std::string, std::string>> gplanes_;  // (array, type), 8-byte first
};

}  // namespace

// Phase-shifted kept columns: the VEC elements from element `ph` of two consecutive aligned
// vectors (lo, hi): a word shift in log2(W) uniform steps, then a funnel shift within words.
std::string phase_shift_helper() {
  return "template <class E, int V> __device__ __forceinline__ Vec<E, V> phase_shift(const Vec<E, V>& lo, const Vec<E, V>& hi,\n"
         "                                                                  unsigned ph) {\n"
         "  constexpr int W = sizeof(Vec<E, V>) / 4;  // words per vector\n"
         "  union U { Vec<E, V> v; unsigned w[W]; };\n"
         "  U a, b, o;\n  a.v = lo;\n  b.v = hi;\n  unsigned w[2 * W];\n"
         "#pragma unroll\n  for (int i = 0; i < W; ++i) {\n    w[i] = a.w[i];\n    w[W + i] = b.w[i];\n  }\n"
         "  const unsigned bytes = ph * (unsigned)sizeof(E), ws = bytes / 4;\n"
         "#pragma unroll\n  for (int s = W / 2; s >= 1; s /= 2)\n"
         "#pragma unroll\n    for (int i = 0; i + s < 2 * W; ++i) w[i] = (ws & s) ? w[i + s] : w[i];\n"
         "#pragma unroll\n  for (int i = 0; i < W; ++i)\n"
         "    if constexpr (sizeof(E) < 4) o.w[i] = __funnelshift_r(w[i], w[i + 1], (bytes % 4) * 8);\n"
         "    else o.w[i] = w[i];\n"
         "  return o.v;\n}\n";
}

namespace {
std::string outer_stride_helper() {
  return "// The stride of operand k's innermost dim of size > 1 among kernel dims [lo, hi), or 0.\n"
         "__device__ __forceinline__ i64 outer_stride(const Params& p, int k, int lo, int hi) {\n"
         "  for (int d = hi - 1; d >= lo; --d)\n    if (p.dims[d] > 1) return p.stride[k][d];\n  return 0;\n}\n";
}
}  // namespace

std::string outer_device_helpers(bool kept_run) {
  if (!kept_run)
    return "// The kept dims' inner run (outer_scheduler.cpp's kept_split): its first kernel dim, and HK\n"
           "// its size, from operand k's strides.\n"
           "__device__ __forceinline__ int outer_kept_split(const Params& p, int k, int split, i64& hk) {\n"
           "  hk = 1;\n  int d = split;\n"
           "  while (d > 0 && (p.dims[d - 1] == 1 || p.stride[k][d - 1] == hk)) hk *= p.dims[--d];\n  return d;\n}\n" +
           outer_stride_helper();
  return "// The kept dims' inner run (launch_grid.cpp's outer_kept_run): its first kernel dim, and HK\n"
         "// its size: operand k's trailing kept dims at unit stride, as far as each of the N operands'\n"
         "// part of them is one stride (unrolled over N and SPLIT: constant parameter offsets).\n"
         "template <int N, int SPLIT> __device__ __forceinline__ int outer_kept_split(const Params& p, int k, i64& hk) {\n"
         "  hk = 1;\n  int d = SPLIT;\n"
         "  while (d > 0 && (p.dims[d - 1] == 1 || p.stride[k][d - 1] == hk)) hk *= p.dims[--d];\n"
         "  for (bool linear = false; !linear && d < SPLIT - 1;) {\n"
         "    linear = true;\n"
         "#pragma unroll\n"
         "    for (int o = 0; o < N; ++o) {\n"
         "      int dims = 0, varying = 0;\n      bool chained = true;\n      i64 want = -1;\n"
         "#pragma unroll\n"
         "      for (int e = SPLIT - 1; e >= 0; --e) {\n"
         "        if (e < d || p.dims[e] == 1) continue;\n"
         "        ++dims;\n        varying += p.stride[o][e] != 0;\n"
         "        if (want >= 0 && p.stride[o][e] != want) chained = false;\n"
         "        want = p.stride[o][e] * p.dims[e];\n      }\n"
         "      linear = linear && (varying == 0 || (varying == dims && chained));\n    }\n"
         "    if (!linear) hk /= p.dims[d++];\n  }\n  return d;\n}\n" +
         outer_stride_helper();
}


// The normalization form (kernel_outer_norm.cpp) where an output varies along the reduced dims
// or a reduction reads another's result; otherwise the reduction form.
void write_outer(Writer& w, KernelSource& out) {
  bool element_outputs = false;
  for (const OperandPlan& o : w.plan.operands)
    element_outputs |= o.is_output && (o.access == Access::Full || o.access == Access::General || o.access == Access::Row);
  if (element_outputs || plan_stages(w.f, w.seg, w.ks, false, false).max_level > 1) return write_outer_norm(w, out);
  if (w.plan.params.cluster > 1 || w.plan.params.staged || w.plan.params.batch > 0)
    throw Error("codegen: " + w.plan.name + ": cluster, staged and persistent_batch are the outer normalization's parts, "
                "not a reduction's with kept-level outputs (" + w.plan.params.str() + ")");
  OuterWriter(w, out).write();
}

}  // namespace solder::codegen_detail
