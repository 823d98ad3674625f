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
#include <algorithm>

#include "codegen/kernel_writer.h"

namespace solder::codegen_detail {

namespace {

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

}  // namespace

void write_outer(Writer& w, KernelSource& out) {
  const KernelParams& P = w.plan.params;
  std::string& c = w.code;
  const StagePlan& sp = w.sp;  // not persistent: var_mean is one Welford step
  const int ty_n = P.rows_per_block, tx_n = P.threads / P.rows_per_block, rank = static_cast<int>(w.ks.dim_order.size());
  if (sp.max_level > 1) throw Error("codegen: " + w.plan.name + ": an outer reduction of a reduction result (not built)");

  std::vector<Acc> accs;
  bool any_welford = false;
  for (size_t i = 0; i < sp.steps.size(); ++i) {
    const ReductionStep& st = sp.steps[i];
    const DType t = st.welford ? DType::F32 : accumulator_dtype(w.f.value(w.f.nodes()[st.node].out[0]).dtype);
    accs.push_back({&st, static_cast<int>(i), t});
    any_welford |= st.welford;
  }
  // Shared memory for the block combine: the largest step's planes, [TY][VEC][TX] each
  // (consecutive threads of a row at consecutive words: no bank conflicts).
  int64_t smem = 16;
  for (const Acc& a : accs) {
    int64_t bytes = 0;
    for (const auto& [arr, type] : a.planes()) bytes += int64_t{P.threads} * P.vec * (type == "double" || type == "i64" ? 8 : 4);
    smem = std::max(smem, bytes);
  }
  // Grid-form partials: 8-byte planes first, so every plane stays aligned.
  std::vector<std::pair<std::string, std::string>> gplanes;
  for (int wide : {1, 0})
    for (const Acc& a : accs)
      for (const auto& pl : a.planes())
        if ((pl.second == "double" || pl.second == "i64") == static_cast<bool>(wide)) gplanes.push_back(pl);
  auto plane_bytes = [](const std::string& type) { return type == "double" || type == "i64" ? 8 : 4; };
  if (P.grid_split)
    for (const auto& pl : gplanes) out.scratch_per_cell += plane_bytes(pl.second);

  // The inputs the rows' element math reads, by access class.
  std::vector<int> targets;
  for (const auto& st : sp.steps) targets.push_back(st.input);
  const std::vector<int> ins = w.element_inputs(targets, [](int) { return false; });
  auto is = [&](int k, Access a) { return w.op(k).access == a; };

  c += "// The kept dims' inner run (outer_scheduler.cpp's kept_split): its first kernel dim, and HK\n"
       "// its size, from operand k's strides.\n"
       "__device__ __forceinline__ int outer_kept_split(const Params& p, int k, int split, i64& hk) {\n"
       "  hk = 1;\n  int d = split;\n"
       "  while (d > 0 && (p.dims[d - 1] == 1 || p.stride[k][d - 1] == hk)) hk *= p.dims[--d];\n  return d;\n}\n"
       "// The stride of operand k's innermost dim of size > 1 among kernel dims [lo, hi), or 0.\n"
       "__device__ __forceinline__ i64 outer_stride(const Params& p, int k, int lo, int hi) {\n"
       "  for (int d = hi - 1; d >= lo; --d)\n    if (p.dims[d] > 1) return p.stride[k][d];\n  return 0;\n}\n";
  c += "extern \"C\" __global__ void " + w.launch_bounds(P.min_blocks) + " " + w.plan.name + "(const Params p) {\n";
  c += "  constexpr int VEC = " + num(P.vec) + ", TX = " + num(tx_n) + ", TY = " + num(ty_n) + ", UNROLL = " + num(P.unroll) +
       ";\n";
  w.pointers(1);
  c += "  const i64 K = p.R, RR = p.C;  // kept columns, reduced rows\n";
  c += "  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;\n";
  c += "  const i64 kc0 = ((i64)blockIdx.x * TX + tx) * VEC;\n";
  // The dim groups, each collapsing linearly (the stride of its innermost dim of size > 1):
  // rows (rs), the outer kept dims (sa) and the inner run of kept dims (si: 1, or 0 where the
  // operand does not vary along them), split as the scheduler did (kept_split), from the first
  // column input. Column kc lies at (kc / HK) * sa + (kc % HK) * si.
  int first_full = -1;
  for (int k : ins)
    if (is(k, Access::Full) && first_full < 0) first_full = k;
  if (first_full < 0) throw Error("codegen: " + w.plan.name + ": an outer reduction without a column input");
  c += "  i64 HK;  // the inner kept run's size\n";
  c += "  const int KI = outer_kept_split(p, " + num(first_full) + ", " + num(w.ks.split) + ", HK);\n";
  for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k) {
    const std::string n = num(k);
    if (is(k, Access::Full) || is(k, Access::Row))
      c += "  const i64 rs" + n + " = outer_stride(p, " + n + ", " + num(w.ks.split) + ", " + num(rank) + ");\n";
    if (is(k, Access::Full) || is(k, Access::Col)) c += "  const i64 sa" + n + " = outer_stride(p, " + n + ", 0, KI);\n";
    if (is(k, Access::Col)) c += "  const i64 si" + n + " = outer_stride(p, " + n + ", KI, " + num(w.ks.split) + ");\n";
  }
  // Operand k's offset of kept column `col`.
  // Operand k's offset of this thread's column kc0 + j: VEC divides HK (the scheduler's vec),
  // so a thread's columns share one outer kept index (one division per thread).
  c += "  const i64 ka = kc0 / HK, kr = kc0 % HK;\n";
  auto kept_off = [&](int k, const std::string& j) {
    return "ka * sa" + num(k) + " + " + (is(k, Access::Full) ? "kr + " + j : "(kr + " + j + ") * si" + num(k));
  };
  for (int k : ins)
    if (is(k, Access::Full)) c += "  const i64 kb" + num(k) + " = ka * sa" + num(k) + " + kr;  // this thread's vector\n";
  if (P.grid_split)
    c += "  const i64 rps = (RR + gridDim.y - 1) / gridDim.y;  // rows per split\n"
         "  const i64 rb = min(RR, (i64)blockIdx.y * rps), re = min(RR, rb + rps);\n";
  else
    c += "  const i64 rb = 0, re = RR;\n";
  c += "  __shared__ __align__(16) unsigned char osm[" + num(smem) + "];\n";
  if (any_welford) c += "  __shared__ float osn[TY];\n  float wn;\n";
  // Accumulators at the reductions' identities (Welford: empty).
  auto init_accs = [&](int ind) {
    c += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
    for (const Acc& a : accs)
      c += a.welford() ? I(ind + 1) + a.m() + "[j] = 0.f;\n" + I(ind + 1) + a.q() + "[j] = 0.f;\n"
                       : I(ind + 1) + a.a() + "[j] = " + red_identity(a.st->kind, a.t) + ";\n";
    c += I(ind) + "}\n";
    if (any_welford) c += I(ind) + "wn = 0.f;\n";
  };
  for (const Acc& a : accs)
    c += a.welford() ? "  float " + a.m() + "[VEC], " + a.q() + "[VEC];\n" : "  " + a.ct() + " " + a.a() + "[VEC];\n";
  init_accs(1);
  // Kept-only inputs the rows read: this thread's VEC columns, once; scalars once.
  for (int k : ins) {
    const std::string t = storage_type(w.dt(w.op(k).value));
    if (is(k, Access::Scalar)) c += "  const " + t + " hs" + num(k) + " = " + w.ptr(k) + "[0];\n";
    if (is(k, Access::Col)) {
      c += "  " + t + " hc" + num(k) + "[VEC];\n#pragma unroll\n  for (int j = 0; j < VEC; ++j) hc" + num(k) +
           "[j] = kc0 + j < K ? " + w.ptr(k) + "[" + kept_off(k, "j") + "] : (" + t + ")0;\n";
    }
  }

  // One row's accumulation, from the loaded values in<k>[u] (rows' vectors) and ir<k>[u].
  auto body = [&](int ind) {
    if (any_welford) c += I(ind) + "wn += 1.f;\n" + I(ind) + "const float winv = 1.f / wn;\n";
    c += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
    ExprEmitter em(w.f, [&](int v) -> std::string {
      if (!w.is_input(v)) return "";
      const int k = w.operand_index.at(v);
      const DType t = w.dt(v);
      switch (w.op(k).access) {
        case Access::Full: return load_convert(t, "in" + num(k) + "[u].e[j]");
        case Access::Row: return load_convert(t, "ir" + num(k) + "[u]");
        case Access::Col: return load_convert(t, "hc" + num(k) + "[j]");
        default: return load_convert(t, "hs" + num(k));
      }
    });
    em.set_narrow_results(w.narrow_results());
    for (const Acc& a : accs) {
      const std::string x = em.value(a.st->input, c, I(ind + 1));
      if (a.welford()) {
        const std::string d = "d" + num(a.i);
        c += I(ind + 1) + "const float " + d + " = (float)(" + x + ") - " + a.m() + "[j];\n";
        c += I(ind + 1) + a.m() + "[j] += " + d + " * winv;\n";
        c += I(ind + 1) + a.q() + "[j] += " + d + " * ((float)(" + x + ") - " + a.m() + "[j]);\n";
      } else {
        c += I(ind + 1) + a.a() + "[j] = " + combine(a.st->kind, a.a() + "[j]", "(" + a.ct() + ")(" + x + ")") + ";\n";
      }
    }
    c += I(ind) + "}\n";
  };
  // Declarations of the loaded values of `n` rows.
  auto decls = [&](int ind, const std::string& n) {
    for (int k : ins) {
      const std::string t = storage_type(w.dt(w.op(k).value));
      if (is(k, Access::Full)) c += I(ind) + "Vec<" + t + ", VEC> in" + num(k) + "[" + n + "];\n";
      if (is(k, Access::Row)) c += I(ind) + t + " ir" + num(k) + "[" + n + "];\n";
    }
  };
  // Loads of row `r` into slot `u`: whole vectors, or (`whole` false) the columns below K.
  auto loads = [&](int ind, const std::string& r, const std::string& u, bool whole) {
    for (int k : ins) {
      const std::string t = storage_type(w.dt(w.op(k).value)), base = w.ptr(k) + " + (" + r + ") * rs" + num(k);
      if (is(k, Access::Full) && whole)
        c += I(ind) + "in" + num(k) + "[" + u + "] = ld_vec<" + t + ", VEC>(" + base + " + kb" + num(k) + ");\n";
      else if (is(k, Access::Full))
        c += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) in" + num(k) + "[" + u + "].e[j] = kc0 + j < K ? (" +
             base + ")[kb" + num(k) + " + j] : (" + t + ")0;\n";
      if (is(k, Access::Row)) c += I(ind) + "ir" + num(k) + "[" + u + "] = (" + base + ")[0];\n";
    }
  };
  c += "  if (kc0 + VEC <= K) {\n    i64 r = rb + ty;\n";
  if (P.unroll > 1) {
    // Every row's loads of an unrolled step first, then their math: UNROLL loads in flight.
    c += "    for (; r + (i64)(UNROLL - 1) * TY < re; r += (i64)UNROLL * TY) {\n";
    decls(3, "UNROLL");
    c += "#pragma unroll\n      for (int u = 0; u < UNROLL; ++u) {\n";
    loads(4, "r + (i64)u * TY", "u", true);
    c += "      }\n#pragma unroll\n      for (int u = 0; u < UNROLL; ++u) {\n";
    body(4);
    c += "      }\n    }\n";
  }
  c += "    for (; r < re; r += TY) {\n      const int u = 0;\n";
  decls(3, "1");
  loads(3, "r", "0", true);
  body(3);
  c += "    }\n  } else if (kc0 < K) {  // the last tile's partial vector\n";
  c += "    for (i64 r = rb + ty; r < re; r += TY) {\n      const int u = 0;\n";
  decls(3, "1");
  loads(3, "r", "0", false);
  body(3);
  c += "    }\n  }\n";

  // The block's TY partials of each column, combined in thread row 0 in row order.
  auto block_combine = [&](int ind) {
    c += I(ind) + "// Across the block's rows: thread row 0 combines rows 1 .. TY - 1 in order.\n";
    if (any_welford) c += I(ind) + "if (tx == 0) osn[ty] = wn;\n";
    for (const Acc& a : accs) {
      const auto planes = a.planes();
      std::vector<std::string> sm;
      int64_t at = 0;
      for (const auto& [arr, type] : planes) {
        sm.push_back("s" + arr);
        c += I(ind) + type + "* const s" + arr + " = (" + type + "*)(osm + " + num(at) + ");\n";
        at += int64_t{P.threads} * P.vec * plane_bytes(type);
      }
      c += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
      for (size_t pl = 0; pl < planes.size(); ++pl)
        c += I(ind + 1) + sm[pl] + "[(ty * VEC + j) * TX + tx] = " + planes[pl].first + "[j];\n";
      c += I(ind) + "}\n" + I(ind) + "__syncthreads();\n" + I(ind) + "if (ty == 0) {\n#pragma unroll\n" + I(ind + 1) + "for (int j = 0; j < VEC; ++j) {\n";
      if (a.welford()) {
        c += I(ind + 2) + "Welford x = {wn, " + a.m() + "[j], " + a.q() + "[j]};\n";
        c += I(ind + 2) + "for (int t = 1; t < TY; ++t) x = welford_merge(x, {osn[t], " + sm[0] + "[(t * VEC + j) * TX + tx], " + sm[1] +
             "[(t * VEC + j) * TX + tx]});\n";
        c += I(ind + 2) + a.m() + "[j] = x.mean;\n" + I(ind + 2) + a.q() + "[j] = x.m2;\n";
      } else {
        c += I(ind + 2) + "for (int t = 1; t < TY; ++t) " + a.a() + "[j] = " +
             combine(partial_op(*a.st), a.a() + "[j]", sm[0] + "[(t * VEC + j) * TX + tx]") + ";\n";
      }
      c += I(ind + 1) + "}\n" + I(ind) + "}\n" + I(ind) + "__syncthreads();\n";
    }
    if (any_welford) c += I(ind) + "if (ty == 0)\n" + I(ind + 1) + "for (int t = 1; t < TY; ++t) wn += osn[t];\n";
  };
  block_combine(1);

  if (P.grid_split) {
    c += "  if (gridDim.y > 1) {\n";
    c += "    // Grid form: this block's totals into its split's slots; the tile's last block combines.\n";
    c += "    const i64 cells = (i64)gridDim.y * K;\n";
    c += "    unsigned char* const sbase = (unsigned char*)p.scratch + (gridDim.x + 3) / 4 * 16;\n";
    int64_t off = 0;
    for (const auto& [arr, type] : gplanes) {
      c += "    " + type + "* const g" + arr + " = (" + type + "*)(sbase + " + num(off) + " * cells);\n";
      off += plane_bytes(type);
    }
    c += "    if (ty == 0)\n#pragma unroll\n      for (int j = 0; j < VEC; ++j)\n        if (kc0 + j < K) {\n";
    for (const auto& [arr, type] : gplanes) c += "          g" + arr + "[(i64)blockIdx.y * K + kc0 + j] = " + arr + "[j];\n";
    c += "        }\n    __threadfence();\n    __syncthreads();\n    __shared__ bool olast;\n";
    c += "    if (threadIdx.x == 0) olast = atomicAdd((unsigned*)p.scratch + blockIdx.x, 1u) == gridDim.y - 1;\n";
    c += "    __syncthreads();\n    if (!olast) return;\n    __threadfence();\n";
    c += "    // The last block: split y in thread row y % TY, in split order, then across the rows.\n";
    init_accs(2);
    c += "    for (int y = ty; y < (int)gridDim.y; y += TY) {\n";
    if (any_welford) c += "      const float ny = (float)(min(RR, (i64)(y + 1) * rps) - min(RR, (i64)y * rps));\n";
    c += "#pragma unroll\n      for (int j = 0; j < VEC; ++j)\n        if (kc0 + j < K) {\n"
         "          const i64 at = (i64)y * K + kc0 + j;\n";
    for (const Acc& a : accs) {
      if (a.welford()) {
        c += "          const Welford x = welford_merge({wn, " + a.m() + "[j], " + a.q() + "[j]}, {ny, __ldcg(g" + a.m() +
             " + at), __ldcg(g" + a.q() + " + at)});\n";
        c += "          " + a.m() + "[j] = x.mean;\n          " + a.q() + "[j] = x.m2;\n";
      } else {
        c += "          " + a.a() + "[j] = " + combine(partial_op(*a.st), a.a() + "[j]", "__ldcg(g" + a.a() + " + at)") + ";\n";
      }
    }
    c += "        }\n";
    if (any_welford) c += "      wn += ny;\n";
    c += "    }\n";
    block_combine(2);
    c += "    if (threadIdx.x == 0) ((unsigned*)p.scratch)[blockIdx.x] = 0u;  // for the next launch\n  }\n";
  }

  // The kept-level epilogue, by thread row 0, column by column.
  c += "  if (ty != 0) return;\n#pragma unroll\n  for (int j = 0; j < VEC; ++j) {\n    const i64 col = kc0 + j;\n"
       "    if (col >= K) break;\n";
  std::map<int, std::string> results;
  auto declare = [&](int v, const std::string& expr) {
    const std::string name = "r" + num(v);
    const DType t = w.dt(v);
    c += "    const " + std::string(compute_type(t)) + " " + name + " = " +
         (is_floating(t) && t != DType::F32 && t != DType::F64
              ? (t == DType::F16 ? "round_f16(" : "round_bf16(") + expr + ")"
              : expr) +
         ";\n";
    results[v] = name;
  };
  for (const Acc& a : accs) {
    const Node& n = w.f.nodes()[a.st->node];
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
  ExprEmitter em(w.f, [&](int v) -> std::string {
    if (auto it = results.find(v); it != results.end()) return it->second;
    if (!w.is_input(v)) return "";
    const int k = w.operand_index.at(v);
    return load_convert(w.dt(v), w.ptr(k) + "[" + (is(k, Access::Col) ? kept_off(k, "j") : "0") + "]");
  });
  em.set_narrow_results(w.narrow_results());
  for (int k : w.output_slots()) {
    const std::string val = w.stored_value(em, k, I(2));
    c += "    " + std::string(is(k, Access::Scalar) ? "if (col == 0) " : "") + w.ptr(k) + "[" +
         (is(k, Access::Col) ? kept_off(k, "j") : "0") + "] = " + store_convert(w.dt(w.op(k).value), val) + ";\n";
  }
  c += "  }\n}\n";
}

}  // namespace solder::codegen_detail
