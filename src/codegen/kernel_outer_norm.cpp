// Outer persistent normalizations (see schedule/outer_norm_scheduler.cpp): the domain seen as
// [RR reduced rows, K kept columns], kept innermost; the kernel order stays [kept | reduced]
// (p.R = K, p.C = RR). A block is TX threads along the kept columns, each owning VEC contiguous
// columns (16-byte loads), times TY threads along the rows. Pass q computes what the level-q+1
// reductions read, row by row of the thread (ty, ty + TY, ...), and accumulates VEC partials
// each; the block combines them (shuffles between the lanes of a column, then the warps'
// partials through shared memory in warp order: the same bits every run) and every thread takes
// its columns' statistics. The last pass computes the element outputs and stores them;
// kept-level outputs are stored by thread row 0. Element math is recomputed in every pass from
// the inputs: with `batch` > 0 those are held in registers (rows ty + i TY, i < batch), read
// from memory once; with batch 0 each pass reads them again (rows too long to hold).
// var_mean is one Welford step (Chan's merge across threads), so a layer norm takes two passes.
#include <algorithm>

#include "codegen/kernel_writer.h"

namespace solder::codegen_detail {

namespace {

class OuterNormWriter {
 public:
  OuterNormWriter(Writer& w) : w_(w), P_(w.plan.params), c_(w.code), sp_(plan_stages(w.f, w.seg, w.ks, false, false)) {
    ty_n_ = P_.rows_per_block;
    tx_n_ = P_.threads / P_.rows_per_block;
    for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k) {
      if (!w.op(k).is_output) continue;
      (is(k, Access::Full) || is(k, Access::General) ? elem_outs_ : kept_outs_).push_back(k);
    }
    std::vector<int> all;
    for (const auto& st : sp_.steps) all.push_back(st.input);
    for (int k : elem_outs_) all.push_back(w.op(k).value);
    for (int k : kept_outs_) all.push_back(w.op(k).value);
    ins_ = w.element_inputs(all, [](int) { return false; });
  }

  void write() {
    c_ += outer_device_helpers();
    prologue();
    if (P_.batch > 0) held_loads();
    for (int level = 1; level <= sp_.max_level; ++level) reduction_pass(level);
    output_pass();
    c_ += "}\n";
  }

 private:
  bool is(int k, Access a) const { return w_.op(k).access == a; }
  std::string t_of(int k) const { return storage_type(w_.dt(w_.op(k).value)); }
  // Operand k's offset of this thread's column kc0 + j (VEC divides HK: one outer kept index).
  std::string kept_off(int k, const std::string& j) const {
    if (is(k, Access::Scalar) || is(k, Access::Row)) return "0";
    return "ka * sa" + num(k) + " + " + (is(k, Access::Full) ? "kr + " + j : "(kr + " + j + ") * si" + num(k));
  }

  void prologue() {
    const int rank = static_cast<int>(w_.ks.dim_order.size()), split = w_.ks.split;
    c_ += "extern \"C\" __global__ void " + w_.launch_bounds(P_.min_blocks) + " " + w_.plan.name + "(const Params p) {\n";
    c_ += "  constexpr int VEC = " + num(P_.vec) + ", TX = " + num(tx_n_) + ", TY = " + num(ty_n_) + ", THREADS = " +
          num(P_.threads) + ", W = THREADS / 32;\n";
    w_.pointers(1);
    c_ += "  const i64 K = p.R, RR = p.C;  // kept columns, reduced rows\n";
    c_ += "  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;\n";
    c_ += "  const i64 kc = ((i64)blockIdx.x * TX + tx) * VEC;\n";
    c_ += "  const bool act = kc < K;  // VEC divides K: a thread's vector is whole or out of range\n";
    c_ += "  const i64 kc0 = act ? kc : 0;  // out-of-range threads load column 0 and store nothing\n";
    int first_full = -1;
    for (int k : ins_)
      if (is(k, Access::Full) && first_full < 0) first_full = k;
    if (first_full < 0) throw Error("codegen: " + w_.plan.name + ": an outer normalization without a column input");
    c_ += "  i64 HK;\n  const int KI = outer_kept_split(p, " + num(first_full) + ", " + num(split) + ", HK);\n";
    for (int k = 0; k < static_cast<int>(w_.plan.operands.size()); ++k) {
      const std::string n = num(k);
      const bool rows = is(k, Access::Full) || is(k, Access::Row) || is(k, Access::General);
      const bool kept = is(k, Access::Full) || is(k, Access::Col) || is(k, Access::General);
      if (rows) c_ += "  const i64 rs" + n + " = outer_stride(p, " + n + ", " + num(split) + ", " + num(rank) + ");\n";
      if (kept) c_ += "  const i64 sa" + n + " = outer_stride(p, " + n + ", 0, KI);\n";
      if (is(k, Access::Col) || is(k, Access::General))
        c_ += "  const i64 si" + n + " = outer_stride(p, " + n + ", KI, " + num(split) + ");\n";
    }
    c_ += "  const i64 ka = kc0 / HK, kr = kc0 % HK;\n";
    for (int k = 0; k < static_cast<int>(w_.plan.operands.size()); ++k)
      if (is(k, Access::Full)) c_ += "  const i64 kb" + num(k) + " = ka * sa" + num(k) + " + kr;\n";
    // The block combine: per plane, the warps' partials [W][VEC][TX] then the totals [VEC][TX].
    c_ += "  __shared__ __align__(16) unsigned char osm[" + num(int64_t{P_.threads / 32 + 1} * P_.vec * tx_n_ * 8 * 3) +
          "];\n";
    for (int k : ins_) {
      const std::string t = t_of(k);
      if (is(k, Access::Scalar)) c_ += "  const " + t + " hs" + num(k) + " = " + w_.ptr(k) + "[0];\n";
      if (is(k, Access::Col))
        c_ += "  " + t + " hc" + num(k) + "[VEC];\n#pragma unroll\n  for (int j = 0; j < VEC; ++j) hc" + num(k) + "[j] = " +
              w_.ptr(k) + "[" + kept_off(k, "j") + "];\n";
    }
  }

  // The loads of row `r` (in bounds) into slot `s` of the held or loaded arrays.
  void row_loads(int ind, const std::string& r, const std::string& s, const std::string& prefix) {
    for (int k : ins_) {
      const std::string base = w_.ptr(k) + " + (" + r + ") * rs" + num(k);
      if (is(k, Access::Full)) {
        const std::string ld = w_.in_pairs(k) ? "ld_vec<unsigned, VEC / 2>((const unsigned*)(" + base + " + kb" + num(k) + "))"
                                              : "ld_vec<" + t_of(k) + ", VEC>(" + base + " + kb" + num(k) + ")";
        c_ += I(ind) + prefix + num(k) + "[" + s + "] = " + ld + ";\n";
      }
      if (is(k, Access::Row)) c_ += I(ind) + prefix + "r" + num(k) + "[" + s + "] = (" + base + ")[0];\n";
    }
  }
  void row_decls(int ind, const std::string& n, const std::string& prefix) {
    for (int k : ins_) {
      if (is(k, Access::Full)) c_ += I(ind) + w_.in_vec_type(k) + " " + prefix + num(k) + "[" + n + "];\n";
      if (is(k, Access::Row)) c_ += I(ind) + t_of(k) + " " + prefix + "r" + num(k) + "[" + n + "];\n";
    }
  }

  // Held rows: every slot's loads first (rows past RR load row 0: in bounds, never used).
  void held_loads() {
    c_ += "  constexpr int B = " + num(P_.batch) + ";  // rows held per thread: ty + i * TY\n";
    row_decls(1, "B", "h");
    c_ += "#pragma unroll\n  for (int i = 0; i < B; ++i) {\n    const i64 r = ty + (i64)i * TY;\n";
    row_loads(2, "r < RR ? r : 0", "i", "h");
    c_ += "  }\n";
  }

  // The element expression of input / result values for slot `s` of arrays `prefix`.
  ExprEmitter emitter(const std::string& prefix, const std::string& s) {
    ExprEmitter em(w_.f, [this, prefix, s](int v) -> std::string {
      if (auto it = results_.find(v); it != results_.end()) return it->second + "[j]";
      if (!w_.is_input(v)) return "";
      const int k = w_.operand_index.at(v);
      const DType t = w_.dt(v);
      switch (w_.op(k).access) {
        case Access::Full:
          return load_convert(t, w_.in_pairs(k) ? "half_of(" + prefix + num(k) + "[" + s + "].e[j / 2], j & 1)"
                                                : prefix + num(k) + "[" + s + "].e[j]");
        case Access::Row: return load_convert(t, prefix + "r" + num(k) + "[" + s + "]");
        case Access::Col: return load_convert(t, "hc" + num(k) + "[j]");
        default: return load_convert(t, "hs" + num(k));
      }
    });
    em.set_narrow_results(w_.narrow_results());
    em.set_invariant([this](int v) { return sp_.row_level[v] != 0; });
    return em;
  }

  // Each row of the thread, its slot's values in `body(prefix, slot, ind)`, rows past RR
  // skipped (held: only the last slot can be past RR).
  // Re-read rows (batch 0): odd passes walk the rows backwards, starting on what the pass
  // before read last (still in L2).
  template <class Body> void each_row(const Body& body) {
    const bool back = P_.batch == 0 && pass_++ % 2 == 1;
    const std::string row = back ? "RR - 1 - (r0 + (i64)u * TY)" : "r0 + (i64)u * TY";
    if (P_.batch > 0) {
      c_ += "#pragma unroll\n  for (int i = 0; i < B; ++i) {\n    const i64 r = ty + (i64)i * TY;\n"
            "    if (i < B - 1 || r < RR) {\n";
      body("h", "i", 3);
      c_ += "    }\n  }\n";
      return;
    }
    const int u = P_.unroll;
    c_ += "  for (i64 r0 = ty; r0 < RR; r0 += (i64)" + num(u) + " * TY) {\n";
    row_decls(2, num(u), "l");
    c_ += "#pragma unroll\n    for (int u = 0; u < " + num(u) + "; ++u) {\n      const i64 r = " + row + ";\n";
    row_loads(3, "r0 + (i64)u * TY < RR ? r : 0", "u", "l");
    c_ += "    }\n#pragma unroll\n    for (int u = 0; u < " + num(u) + "; ++u) {\n      const i64 r = " + row + ";\n"
          "      if (r0 + (i64)u * TY < RR) {\n";
    body("l", "u", 4);
    c_ += "      }\n    }\n  }\n";
  }

  // Pass level - 1: the level's reductions over the thread's rows, then the block combine.
  void reduction_pass(int level) {
    std::vector<const ReductionStep*> steps;
    for (const auto& st : sp_.steps)
      if (st.level == level) steps.push_back(&st);
    c_ += "  // Pass " + num(level - 1) + ": the reductions of level " + num(level) + ".\n";
    bool welford = false;
    for (const auto* st : steps) {
      const int i = idx(st);
      if (st->welford) {
        welford = true;
        c_ += "  float wm" + num(i) + "[VEC], wq" + num(i) + "[VEC];\n";
        c_ += "#pragma unroll\n  for (int j = 0; j < VEC; ++j) wm" + num(i) + "[j] = wq" + num(i) + "[j] = 0.f;\n";
      } else {
        const DType t = acc_t(*st);
        c_ += "  " + std::string(compute_type(t)) + " acc" + num(i) + "[VEC];\n#pragma unroll\n  for (int j = 0; j < VEC; ++j) acc" +
              num(i) + "[j] = " + red_identity(st->kind, t) + ";\n";
      }
    }
    if (welford) c_ += "  float wn" + num(level) + " = 0.f;\n";
    each_row([&](const std::string& prefix, const std::string& s, int ind) {
      if (welford) c_ += I(ind) + "wn" + num(level) + " += 1.f;\n" + I(ind) + "const float winv = 1.f / wn" + num(level) + ";\n";
      c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
      ExprEmitter em = emitter(prefix, s);
      for (const auto* st : steps) {
        const std::string x = em.value(st->input, c_, I(ind + 1)), n = num(idx(st));
        if (st->welford) {
          c_ += I(ind + 1) + "const float d" + n + " = (float)(" + x + ") - wm" + n + "[j];\n";
          c_ += I(ind + 1) + "wm" + n + "[j] += d" + n + " * winv;\n";
          c_ += I(ind + 1) + "wq" + n + "[j] += d" + n + " * ((float)(" + x + ") - wm" + n + "[j]);\n";
        } else {
          const std::string a = "acc" + n + "[j]";
          c_ += I(ind + 1) + a + " = " + combine(st->kind, a, "(" + std::string(compute_type(acc_t(*st))) + ")(" + x + ")") + ";\n";
        }
      }
      c_ += I(ind) + "}\n";
    });
    for (const auto* st : steps) combine_block(*st, level);
  }

  int idx(const ReductionStep* st) const { return static_cast<int>(st - sp_.steps.data()); }
  DType acc_t(const ReductionStep& st) const {
    return accumulator_dtype(w_.dt(w_.f.nodes()[st.node].out[0]));
  }

  // The block's partials of one step combined; every thread takes its columns' totals and
  // declares the step's results (rv<value>[VEC], as the reference defines them).
  void combine_block(const ReductionStep& st, int level) {
    const std::string n = num(idx(&st));
    const Op op = st.kind == Op::Max || st.kind == Op::Min ? st.kind : Op::Sum;
    std::vector<std::pair<std::string, std::string>> planes;  // (register array, type)
    if (st.welford) planes = {{"wc" + n, "float"}, {"wm" + n, "float"}, {"wq" + n, "float"}};
    else planes = {{"acc" + n, compute_type(acc_t(st))}};
    c_ += "  {  // block combine of step " + n + "\n";
    if (st.welford) c_ += "    float wc" + n + "[VEC];\n#pragma unroll\n    for (int j = 0; j < VEC; ++j) wc" + n + "[j] = wn" + num(level) + ";\n";
    // Lanes of one column (same tx) combine by shuffles: lane ty % (32 / TX) == 0 holds the warp's.
    c_ += "#pragma unroll\n    for (int o = 16; o >= TX; o >>= 1) {\n#pragma unroll\n      for (int j = 0; j < VEC; ++j) {\n";
    if (st.welford) {
      c_ += "        const Welford x = welford_merge({wc" + n + "[j], wm" + n + "[j], wq" + n + "[j]}, {__shfl_xor_sync(0xffffffffu, wc" + n +
            "[j], o), __shfl_xor_sync(0xffffffffu, wm" + n + "[j], o), __shfl_xor_sync(0xffffffffu, wq" + n + "[j], o)});\n";
      c_ += "        wc" + n + "[j] = x.n;\n        wm" + n + "[j] = x.mean;\n        wq" + n + "[j] = x.m2;\n";
    } else {
      c_ += "        acc" + n + "[j] = " + combine(op, "acc" + n + "[j]", "__shfl_xor_sync(0xffffffffu, acc" + n + "[j], o)") + ";\n";
    }
    c_ += "      }\n    }\n";
    // Shared memory: plane pl's partials at pl * PLANE, totals after the partials.
    const std::string plane = "(W + 1) * VEC * TX * 8";
    c_ += "    const int wp = threadIdx.x / 32;\n    if ((threadIdx.x % 32) < TX) {\n#pragma unroll\n      for (int j = 0; j < VEC; ++j) {\n";
    for (size_t pl = 0; pl < planes.size(); ++pl)
      c_ += "        ((" + planes[pl].second + "*)(osm + " + num(pl) + " * " + plane + "))[(wp * VEC + j) * TX + tx] = " +
            planes[pl].first + "[j];\n";
    c_ += "      }\n    }\n    __syncthreads();\n";
    c_ += "    for (int c = threadIdx.x; c < VEC * TX; c += THREADS) {\n";
    auto at = [&](size_t pl, const std::string& i) {
      return "((" + planes[pl].second + "*)(osm + " + num(pl) + " * " + plane + "))[" + i + "]";
    };
    if (st.welford) {
      c_ += "      Welford x = {" + at(0, "c") + ", " + at(1, "c") + ", " + at(2, "c") + "};\n";
      c_ += "      for (int v = 1; v < W; ++v) x = welford_merge(x, {" + at(0, "v * VEC * TX + c") + ", " + at(1, "v * VEC * TX + c") +
            ", " + at(2, "v * VEC * TX + c") + "});\n";
      c_ += "      " + at(0, "W * VEC * TX + c") + " = x.n;\n      " + at(1, "W * VEC * TX + c") + " = x.mean;\n      " +
            at(2, "W * VEC * TX + c") + " = x.m2;\n";
    } else {
      c_ += "      " + planes[0].second + " x = " + at(0, "c") + ";\n";
      c_ += "      for (int v = 1; v < W; ++v) x = " + combine(op, "x", at(0, "v * VEC * TX + c")) + ";\n";
      c_ += "      " + at(0, "W * VEC * TX + c") + " = x;\n";
    }
    c_ += "    }\n    __syncthreads();\n#pragma unroll\n    for (int j = 0; j < VEC; ++j) {\n";
    for (size_t pl = 0; pl < planes.size(); ++pl) c_ += "      " + planes[pl].first + "[j] = " + at(pl, "W * VEC * TX + j * TX + tx") + ";\n";
    c_ += "    }\n  }\n";
    declare_results(st);
  }

  void declare_results(const ReductionStep& st) {
    const Node& node = w_.f.nodes()[st.node];
    const std::string n = num(idx(&st));
    auto declare = [&](int v, const std::string& expr) {
      const DType t = w_.dt(v);
      const std::string name = "rv" + num(v);
      const std::string e = is_floating(t) && t != DType::F32 && t != DType::F64
                                ? std::string(t == DType::F16 ? "round_f16(" : "round_bf16(") + expr + ")"
                                : expr;
      c_ += "  " + std::string(compute_type(t)) + " " + name + "[VEC];\n#pragma unroll\n  for (int j = 0; j < VEC; ++j) " + name +
            "[j] = " + e + ";\n";
      results_[v] = name;
    };
    if (st.welford) {
      const std::string corr = num(node.attrs.correction);
      declare(node.out[0], "wq" + n + "[j] / (float)(RR - " + corr + " > 0 ? RR - " + corr + " : 0)");
      declare(node.out[1], "wm" + n + "[j]");
    } else if (st.kind == Op::Mean) {
      declare(node.out[0], "acc" + n + "[j] / (" + std::string(compute_type(acc_t(st))) + ")RR");
    } else {
      declare(node.out[0], "acc" + n + "[j]");
    }
  }

  // The last pass: element outputs row by row; kept-level outputs by thread row 0.
  void output_pass() {
    c_ += "  // The outputs.\n";
    if (!elem_outs_.empty()) {
      each_row([&](const std::string& prefix, const std::string& s, int ind) {
        for (int k : elem_outs_)
          if (is(k, Access::Full)) c_ += I(ind) + "Vec<" + t_of(k) + ", VEC> o" + num(k) + ";\n";
        c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
        ExprEmitter em = emitter(prefix, s);
        for (int k : elem_outs_) {
          const std::string val = store_convert(w_.dt(w_.op(k).value), w_.stored_value(em, k, I(ind + 1)));
          if (is(k, Access::Full)) c_ += I(ind + 1) + "o" + num(k) + ".e[j] = " + val + ";\n";
          else c_ += I(ind + 1) + "if (act) " + w_.ptr(k) + "[r * rs" + num(k) + " + " + kept_off(k, "j") + "] = " + val + ";\n";
        }
        c_ += I(ind) + "}\n";
        for (int k : elem_outs_)
          if (is(k, Access::Full))
            c_ += I(ind) + "if (act) st_vec<" + t_of(k) + ", VEC>(" + w_.ptr(k) + " + r * rs" + num(k) + " + kb" + num(k) + ", o" +
                  num(k) + ");\n";
      });
    }
    if (kept_outs_.empty()) return;
    c_ += "  if (ty == 0 && act) {\n#pragma unroll\n    for (int j = 0; j < VEC; ++j) {\n";
    ExprEmitter em = emitter("h", "0");
    for (int k : kept_outs_) {
      const std::string val = store_convert(w_.dt(w_.op(k).value), w_.stored_value(em, k, I(3)));
      c_ += "      " + std::string(is(k, Access::Scalar) ? "if (kc0 + j == 0) " : "") + w_.ptr(k) + "[" + kept_off(k, "j") + "] = " +
            val + ";\n";
    }
    c_ += "    }\n  }\n";
  }

  Writer& w_;
  const KernelParams& P_;
  std::string& c_;
  StagePlan sp_;
  int ty_n_ = 1, tx_n_ = 1;
  int pass_ = 0;
  std::vector<int> ins_, elem_outs_, kept_outs_;
  std::map<int, std::string> results_;  // reduction result value -> its register array
};

}  // namespace

void write_outer_norm(Writer& w, KernelSource&) { OuterNormWriter(w).write(); }

}  // namespace solder::codegen_detail
